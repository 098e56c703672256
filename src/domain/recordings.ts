// What calls and meetings keep from their providers alike: recordings and transcript cues.
import { invalidAt } from './errors.ts';
import { ValueProblem } from './field-types/index.ts';
import { url } from './field-types/text.ts';
import { longerThan } from './characters.ts';

/** A recording the provider holds; only its address and type are kept. */
export interface Recording<ContentType extends string = string> {
  contentType: ContentType;
  providerId: string;
  url: string;
}

/** A recording as a request gives it. */
export interface RecordingInput {
  content_type: string;
  provider_id: string;
  url: string;
}

/** Provider ids are kept verbatim and at most this long. */
const PROVIDER_ID_MAX = 255;

/** The usual file name extension of each content type a recording may have, for examples in messages. */
const FILE_EXTENSIONS: Record<string, string> = { 'audio/mpeg': 'mp3', 'video/mp4': 'mp4' };

/** Where a recording can be fetched from: clients put the URL in a link or a player, so no `javascript:` or `data:`. */
const RECORDING_SCHEMES = new Set(['http:', 'https:']);

/**
 * A recording of the one content type the resource takes, with its provider id and an http(s) URL (checked
 * as `value/uri/url` data is, then its scheme); a 422 at the property under `pointer` otherwise.
 */
export function checkRecording<C extends string>(input: RecordingInput, pointer: string, contentType: C): Recording<C> {
  if (input.content_type !== contentType) {
    throw invalidAt(`${pointer}/content_type`, `content_type must be "${contentType}", the only type accepted; got ${JSON.stringify(input.content_type)}`);
  }
  if (input.provider_id.trim() === '' || input.provider_id.length > PROVIDER_ID_MAX) {
    throw invalidAt(`${pointer}/provider_id`, `provider_id must be the provider's id of the recording, 1 to ${PROVIDER_ID_MAX} characters and not blank`);
  }
  let address: string;
  try {
    address = url.parse(input.url, undefined as never) as string;
  } catch (error) {
    if (error instanceof ValueProblem) throw invalidAt(`${pointer}/url`, `url ${error.detail}`);
    throw error;
  }
  if (!RECORDING_SCHEMES.has(new URL(address).protocol)) {
    throw invalidAt(`${pointer}/url`, `url must be an http or https URL where the recording can be fetched, such as "https://example.com/recording.${FILE_EXTENSIONS[contentType] ?? 'mp3'}"; got ${JSON.stringify(input.url)}`);
  }
  return { contentType, providerId: input.provider_id, url: address };
}

/** The longest text of one transcript cue. */
const CUE_TEXT_MAX = 65_536;

/** A cue's text as a request gives it: at most CUE_TEXT_MAX characters, else a 422 at `pointer`. */
export function cueText(text: string, pointer: string): string {
  if (longerThan(text, CUE_TEXT_MAX)) throw invalidAt(pointer, `text must be at most ${CUE_TEXT_MAX} characters; split a longer passage into several cues`);
  return text;
}

/** A transcript cue: seconds from the start, the text, and who spoke (each resource says how). */
export interface Cue<Speaker> {
  from: number;
  to: number;
  text: string;
  speaker: Speaker;
}
