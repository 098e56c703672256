// Uploaded files with their signed download links.
import { ListPage } from '../components.tsx';
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
  return (
    <ListPage<StoredFile>
      title="Files"
      path="/v0/files"
      columns={[
        { title: 'Name', cell: (f) => <a href={f.download_url}>{f.name}</a> },
        { title: 'File name', cell: (f) => f.filename },
        { title: 'Size', cell: (f) => `${f.size.toLocaleString()} bytes` },
        { title: 'Uploaded', cell: (f) => timeText(f.created_at) },
      ]}
    />
  );
}
