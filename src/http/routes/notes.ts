// /v0/notes: list, create, retrieve, update (optimistic locking), delete.
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { createNote, deleteNote, getNote, listNotes, updateNote } from '../../domain/notes.ts';
import { ListOf, PageQuery, doc, NoContent } from '../schemas/common.ts';
import { CreateNoteBody, NoteWire, UpdateNoteBody, renderNote } from '../schemas/notes.ts';
import type { RouteDeps } from '../route-deps.ts';

const Params = Type.Object({ id: Type.String() });

const docs = {
  listNotes: doc('Notes', 'List notes',
    'Notes in creation order.'),
  createNote: doc('Notes', 'Create a note',
    'Creates a note, optionally associated with items, calls or meetings.'),
  retrieveNote: doc('Notes', 'Retrieve a note',
    'One note by id.'),
  updateNote: doc('Notes', 'Update a note',
    'Changes a note. Send the `lock_version` you read: a stale one answers 409.'),
  deleteNote: doc('Notes', 'Delete a note',
    'Deletes a note.'),
};

export const noteRoutes: FastifyPluginAsyncTypebox<RouteDeps> = async (app, { store, listing, clock }) => {
  app.get('/notes', { schema: { ...docs.listNotes, querystring: PageQuery, response: { 200: ListOf(NoteWire) } } }, async (req) =>
    listing.envelope(req, 'notes', await listNotes(store, req.principal.orgId, listing.page(req, req.query, 'notes')), renderNote),
  );

  app.post('/notes', { schema: { ...docs.createNote, body: CreateNoteBody, response: { 201: NoteWire } } }, async (req, reply) =>
    reply.code(201).send(renderNote(await createNote(store, req.principal, req.body, clock))),
  );

  app.get('/notes/:id', { schema: { ...docs.retrieveNote, params: Params, response: { 200: NoteWire } } }, async (req) =>
    renderNote(await getNote(store, req.principal.orgId, req.params.id)),
  );

  app.patch('/notes/:id', { schema: { ...docs.updateNote, params: Params, body: UpdateNoteBody, response: { 200: NoteWire } } }, async (req) =>
    renderNote(await updateNote(store, req.principal.orgId, req.params.id, req.body, clock)),
  );

  app.delete('/notes/:id', { schema: { ...docs.deleteNote, params: Params, response: { 204: NoContent } } }, async (req, reply) => {
    await deleteNote(store, req.principal.orgId, req.params.id);
    return reply.code(204).send();
  });
};
