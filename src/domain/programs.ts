// Marketing programs and their templates (reference §5.10). The hosted API only reads them; Tycho creates and
// updates them through its extension (`/v0/tycho/programs`, `/v0/tycho/program_templates`) and the CLI. A
// program has one template, whose subject and body are Liquid, parsed when saved.
import { AppError, invalidAt, orNotFound } from './errors.ts';
import { newId } from './ids.ts';
import { timestamp, type Clock } from './clock.ts';
import { parseDateTime } from './field-types/dates.ts';
import { parseTemplate } from './liquid.ts';
import type { Page, PageRequest } from './pagination.ts';
import type { Store } from './ports/store.ts';
import { characterCount, longerThan } from './characters.ts';
import { recordLock } from './locks.ts';

export const PROGRAM_STATUSES = ['draft', 'published', 'paused', 'archived'] as const;
export const PROGRAM_TRIGGERS = ['api', 'broadcast'] as const;
export type ProgramStatus = (typeof PROGRAM_STATUSES)[number];
export type ProgramTrigger = (typeof PROGRAM_TRIGGERS)[number];

export interface Program {
  id: string;
  orgId: string;
  displayName: string | null;
  status: ProgramStatus;
  trigger: ProgramTrigger;
  trackOpens: boolean;
  trackClicks: boolean;
  /** When a broadcast goes out. */
  scheduledAt: string | null;
  createdAt: string;
  updatedAt: string;
}

export interface ProgramTemplate {
  id: string;
  orgId: string;
  programId: string;
  subject: string;
  /** Markdown with Liquid. */
  body: string;
  createdAt: string;
  updatedAt: string;
}

/** What a program's messages came to: outcomes, and messages with each delivery event (once per message). */
export interface ProgramMetrics {
  sent: number;
  opened: number;
  clicked: number;
  bounced: number;
  complained: number;
  failed: number;
  shielded: number;
  unsubscribed: number;
}

export interface ProgramInput {
  display_name?: string | null;
  status?: ProgramStatus;
  trigger?: ProgramTrigger;
  track_opens?: boolean;
  track_clicks?: boolean;
  scheduled_at?: string | null;
}

export interface TemplateInput {
  subject?: string;
  body?: { markdown?: string };
}

const NAME_MAX = 255;
const SUBJECT_MAX = 998;
const BODY_MAX = 100_000;

function displayName(value: string | null): string | null {
  if (value === null) return null;
  const name = value.trim();
  if (name === '') throw invalidAt('/display_name', 'display_name must not be blank; send null to clear it');
  if (longerThan(name, NAME_MAX)) throw invalidAt('/display_name', `display_name must be at most ${NAME_MAX} characters or null, got ${characterCount(name)}`);
  return name;
}

function scheduledAt(value: string | null): string | null {
  if (value === null) return null;
  const at = parseDateTime(value);
  if (at === null) throw invalidAt('/scheduled_at', `scheduled_at must be an ISO 8601 date-time such as "2025-02-17T16:00:00Z" or null, got "${value}"`);
  return at;
}

/** The program with `input` applied. */
function applyProgram(program: Program, input: ProgramInput): Program {
  const next = { ...program };
  if (input.display_name !== undefined) next.displayName = displayName(input.display_name);
  if (input.status !== undefined) next.status = input.status;
  if (input.trigger !== undefined) next.trigger = input.trigger;
  if (input.track_opens !== undefined) next.trackOpens = input.track_opens;
  if (input.track_clicks !== undefined) next.trackClicks = input.track_clicks;
  if (input.scheduled_at !== undefined) next.scheduledAt = scheduledAt(input.scheduled_at);
  return next;
}

export async function createProgram(store: Store, orgId: string, input: ProgramInput, clock?: Clock): Promise<Program> {
  const now = timestamp(clock);
  const blank: Program = {
    id: newId(), orgId, displayName: null, status: 'draft', trigger: 'api', trackOpens: false, trackClicks: false, scheduledAt: null,
    createdAt: now, updatedAt: now,
  };
  const program = applyProgram(blank, input);
  // In a transaction, as every write a request makes (an Idempotency-Key claim is noted written in its commit).
  await store.transaction((tx) => tx.programs.insert(program));
  return program;
}

export async function updateProgram(store: Store, orgId: string, id: string, input: ProgramInput, clock?: Clock): Promise<Program> {
  return store.transaction(async (tx) => {
    // Each PATCH writes the whole row: concurrent ones of one program must not interleave read and write.
    await tx.lock([recordLock('program', id)]);
    const program = applyProgram(await getProgram(tx, orgId, id), input);
    program.updatedAt = timestamp(clock);
    await tx.programs.update(program);
    return program;
  });
}

export function getProgram(store: Store, orgId: string, id: string): Promise<Program> {
  return orNotFound(store.programs.find(orgId, id));
}

export function listPrograms(store: Store, orgId: string, page: PageRequest): Promise<Page<Program>> {
  return store.programs.list(orgId, page);
}

export function programMetrics(store: Store, orgId: string, programId: string): Promise<ProgramMetrics> {
  return store.programMessages.metrics(orgId, programId);
}

/** The template of each program that has one. */
export async function templatesOfPrograms(store: Store, orgId: string, programIds: string[]): Promise<Map<string, ProgramTemplate>> {
  if (programIds.length === 0) return new Map();
  const page = await store.programTemplates.list(orgId, { limit: programIds.length }, { programId: programIds });
  return new Map(page.rows.map((t) => [t.programId, t]));
}

export async function programsByIds(store: Store, orgId: string, ids: string[]): Promise<Map<string, Program>> {
  return new Map((await store.programs.findMany(orgId, [...new Set(ids)])).map((p) => [p.id, p]));
}

function subject(value: string): string {
  if (value.trim() === '') throw invalidAt('/subject', 'subject must not be blank');
  if (longerThan(value, SUBJECT_MAX)) throw invalidAt('/subject', `subject must be at most ${SUBJECT_MAX} characters, got ${characterCount(value)}`);
  parseTemplate(value, '/subject', 'subject');
  return value;
}

function body(value: { markdown?: string }): string {
  const markdown = value.markdown ?? '';
  if (longerThan(markdown, BODY_MAX)) throw invalidAt('/body/markdown', `body.markdown must be at most ${BODY_MAX} characters, got ${characterCount(markdown)}`);
  parseTemplate(markdown, '/body/markdown', 'body.markdown');
  return markdown;
}

export async function createTemplate(
  store: Store,
  orgId: string,
  input: TemplateInput & { program_id: string; subject: string },
  clock?: Clock,
): Promise<ProgramTemplate> {
  const checked = { subject: subject(input.subject), body: body(input.body ?? {}) };
  return store.transaction(async (tx) => {
    const program = await tx.programs.find(orgId, input.program_id);
    if (!program) throw invalidAt('/program_id', `program_id "${input.program_id}" names no program of this organization; create one with POST /v0/tycho/programs`);
    if ((await templatesOfPrograms(tx, orgId, [program.id])).size > 0) {
      throw new AppError('conflict', `program ${program.id} already has a template; change it with PATCH /v0/tycho/program_templates/{id}`);
    }
    const now = timestamp(clock);
    const template: ProgramTemplate = { id: newId(), orgId, programId: program.id, ...checked, createdAt: now, updatedAt: now };
    await tx.programTemplates.insert(template);
    return template;
  });
}

export async function updateTemplate(store: Store, orgId: string, id: string, input: TemplateInput, clock?: Clock): Promise<ProgramTemplate> {
  return store.transaction(async (tx) => {
    await tx.lock([recordLock('program_template', id)]);
    const template = { ...(await getTemplate(tx, orgId, id)), updatedAt: timestamp(clock) };
    if (input.subject !== undefined) template.subject = subject(input.subject);
    if (input.body !== undefined) template.body = body(input.body);
    await tx.programTemplates.update(template);
    return template;
  });
}

export function getTemplate(store: Store, orgId: string, id: string): Promise<ProgramTemplate> {
  return orNotFound(store.programTemplates.find(orgId, id));
}

/** Newest first, as the hosted service lists them. */
export function listTemplates(store: Store, orgId: string, page: PageRequest): Promise<Page<ProgramTemplate>> {
  return store.programTemplates.listNewestFirst(orgId, page);
}
