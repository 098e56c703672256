// /v0/meetings: list (filter `i_cal_uid[eq]`, also as `filter[i_cal_uid][eq]`), retrieve with include[], and
// PATCH (recording, transcript, tags); plus Tycho's extension POST /v0/tycho/meetings, which creates a meeting
// or updates the one with the same i_cal_uid (the hosted service fills meetings from calendar sync instead).
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { getMeeting, listMeetings, saveMeeting, updateMeeting } from '../../domain/meetings.ts';
import { ListOf, PageQuery, doc, EXTENSIONS_TAG } from '../schemas/common.ts';
import { MEETING_INCLUDES, MeetingWire, SaveMeetingBody, UpdateMeetingBody, renderMeeting } from '../schemas/meetings.ts';
import { idFilters, Include, includesOf, legacyFilterHook } from '../list-query.ts';
import type { RouteDeps } from '../route-deps.ts';

const Params = Type.Object({ id: Type.String() });

const FILTERS = idFilters({ i_cal_uid: {} });

const ListQuery = Type.Object({ ...PageQuery.properties, ...FILTERS.properties });

const docs = {
  listMeetings: doc('Meetings', 'List meetings',
    'Meetings in creation order; `i_cal_uid[eq]` finds one by its calendar UID.'),
  retrieveMeeting: doc('Meetings', 'Retrieve a meeting',
    'One meeting by id; `include[]` adds `organizer`, `attendees`, `transcript`, `note` (the newest note on the meeting) and `summary`.'),
  updateMeeting: doc('Meetings', 'Update a meeting',
    'Adds a recording, a transcript or tags to a meeting.'),
  createUpdateMeeting: doc(EXTENSIONS_TAG, 'Create or update a meeting',
    'The hosted service learns meetings from connected calendars; this creates one (201) or updates the one with the same `i_cal_uid` (200), matching attendees to people and organizations by email.'),
};

export const meetingRoutes: FastifyPluginAsyncTypebox<RouteDeps> = async (app, { store, listing, clock }) => {
  app.get(
    '/meetings',
    { preValidation: legacyFilterHook, schema: { ...docs.listMeetings, querystring: ListQuery, response: { 200: ListOf(MeetingWire) } } },
    async (req) => {
      const { orgId } = req.principal;
      const { after, before, limit } = req.query;
      const iCalUids = FILTERS.read(req.query).i_cal_uid;
      // The cursor belongs to the list as filtered.
      const list = iCalUids === undefined ? 'meetings' : `meetings?i_cal_uid=${iCalUids.join(',')}`;
      const page = await listMeetings(store, orgId, iCalUids === undefined ? {} : { iCalUids }, listing.page(req, { after, before, limit }, list), clock);
      // Whole meetings: the newest clients read the pointer ({id, type}) within them, older ones the rest.
      return listing.envelope(req, list, page, (m) => renderMeeting(m));
    },
  );

  app.get(
    '/meetings/:id',
    { schema: { ...docs.retrieveMeeting, params: Params, querystring: Type.Object({ include: Include(MEETING_INCLUDES) }), response: { 200: MeetingWire } } },
    async (req) => {
      const include = includesOf(req.query.include) ?? new Set<string>();
      const meeting = await getMeeting(store, req.principal.orgId, req.params.id, { note: include.has('note') }, clock);
      return renderMeeting(meeting, include);
    },
  );

  app.patch('/meetings/:id', { schema: { ...docs.updateMeeting, params: Params, body: UpdateMeetingBody, response: { 200: MeetingWire } } }, async (req) =>
    renderMeeting(await updateMeeting(store, req.principal.orgId, req.params.id, req.body, clock)),
  );

  app.post(
    '/tycho/meetings',
    { schema: { ...docs.createUpdateMeeting, body: SaveMeetingBody, response: { 200: MeetingWire, 201: MeetingWire } } },
    async (req, reply) => {
      const { meeting, created } = await saveMeeting(store, req.principal.orgId, req.body, clock);
      const all = new Set<string>(['organizer', 'attendees']);
      return reply.code(created ? 201 : 200).send(renderMeeting(meeting, all));
    },
  );
};
