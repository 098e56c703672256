// /v0/notes: list, create, retrieve, update (optimistic locking), delete.
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { createNote, deleteNote, getNote, listNotes, updateNote } from '../../domain/notes.ts';
import { ListOf, PageQuery } from '../schemas/common.ts';
import { CreateNoteBody, NoteWire, UpdateNoteBody, renderNote } from '../schemas/notes.ts';
import type { RouteDeps } from '../route-deps.ts';

const Params = Type.Object({ id: Type.String() });

export const noteRoutes: FastifyPluginAsyncTypebox<RouteDeps> = async (app, { store, listing, clock }) => {
  app.get('/notes', { schema: { querystring: PageQuery, response: { 200: ListOf(NoteWire) } } }, async (req) =>
    listing.envelope(req, 'notes', await listNotes(store, req.principal.orgId, listing.page(req, req.query, 'notes')), renderNote),
  );

  app.post('/notes', { schema: { body: CreateNoteBody, response: { 201: NoteWire } } }, async (req, reply) =>
    reply.code(201).send(renderNote(await createNote(store, req.principal, req.body, clock))),
  );

  app.get('/notes/:id', { schema: { params: Params, response: { 200: NoteWire } } }, async (req) =>
    renderNote(await getNote(store, req.principal.orgId, req.params.id)),
  );

  app.patch('/notes/:id', { schema: { params: Params, body: UpdateNoteBody, response: { 200: NoteWire } } }, async (req) =>
    renderNote(await updateNote(store, req.principal.orgId, req.params.id, req.body, clock)),
  );

  app.delete('/notes/:id', { schema: { params: Params } }, async (req, reply) => {
    await deleteNote(store, req.principal.orgId, req.params.id);
    return reply.code(204).send();
  });
};
