// The project's root directory, for the files the server reads beside its code (package.json, the console's
// build). Right both when the TypeScript sources run (src/) and when the built server does (dist/): each is
// one directory below the root.
import { fileURLToPath } from 'node:url';

export const PROJECT_ROOT = fileURLToPath(new URL('..', import.meta.url));
