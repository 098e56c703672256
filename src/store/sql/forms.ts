// Forms: the generic owned-record repository, plus the lookup by id alone that public submissions use.
import type { Kysely } from 'kysely';
import type { Form } from '../../domain/forms.ts';
import type { FormRepo } from '../../domain/ports/store.ts';
import { recordRepo, type RecordMapping } from './records.ts';
import type { Database, FormsTable } from './schema.ts';

const formMapping: RecordMapping<Form, FormsTable> = {
  toModel: (r) => ({
    id: r.id,
    orgId: r.org_id,
    collectionId: r.collection_id,
    name: r.name,
    pagesEnabled: r.pages_enabled === 1,
    businessEmailRequired: r.business_email_required === 1,
    redirectUrl: r.redirect_url,
    createdAt: r.created_at,
    updatedAt: r.updated_at,
  }),
  toRow: (f) => ({
    id: f.id,
    org_id: f.orgId,
    collection_id: f.collectionId,
    name: f.name,
    pages_enabled: f.pagesEnabled ? 1 : 0,
    business_email_required: f.businessEmailRequired ? 1 : 0,
    redirect_url: f.redirectUrl,
    created_at: f.createdAt,
    updated_at: f.updatedAt,
  }),
  filters: {},
};

export function formRepo(db: Kysely<Database>): FormRepo {
  return {
    ...recordRepo(db, 'forms', formMapping),
    async findById(id) {
      const row = await db.selectFrom('forms').selectAll().where('id', '=', id).executeTakeFirst();
      return row && formMapping.toModel(row);
    },
  };
}
