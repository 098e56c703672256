// Uploaded files with their signed download links.
import { api, query, type ApiList } from '../api.ts';
import { Loading, Table, usePaged } from '../components.tsx';
import { timeText } from '../format.ts';

interface StoredFile {
  id: string;
  name: string;
  filename: string;
  size: number;
  download_url: string;
  created_at: string;
}

export function FilesPage() {
  const { state, pager } = usePaged((c) => api<ApiList<StoredFile>>('GET', `/v0/files${query({ limit: 50, ...c })}`), []);
  return (
    <section>
      <h2>Files</h2>
      <Loading state={state}>
        {(list) => (
          <Table
            rows={list.data}
            columns={[
              { title: 'Name', cell: (f) => <a href={f.download_url}>{f.name}</a> },
              { title: 'File name', cell: (f) => f.filename },
              { title: 'Size', cell: (f) => `${f.size.toLocaleString()} bytes` },
              { title: 'Uploaded', cell: (f) => timeText(f.created_at) },
            ]}
          />
        )}
      </Loading>
      {pager}
    </section>
  );
}
