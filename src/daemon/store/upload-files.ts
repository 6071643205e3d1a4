// The embedded store's upload bytes: one file per upload in the data dir's uploads folder, the
// folder Uploads streams its temp files into (so taking one over is a rename, never a copy).
import { readFile, rename, rm } from 'node:fs/promises';
import { join } from 'node:path';
import type { StoredUpload } from './store.js';

export const UPLOADS_DIR = 'uploads';

export class UploadFiles {
  readonly dir: string;

  constructor(dataDir: string) {
    this.dir = join(dataDir, UPLOADS_DIR);
  }

  async put(id: string, tempFile: string): Promise<void> {
    await rename(tempFile, join(this.dir, id));
  }

  async read(upload: StoredUpload): Promise<Uint8Array | undefined> {
    try {
      return await readFile(join(this.dir, upload.file));
    } catch {
      return undefined;
    }
  }

  async delete(upload: StoredUpload): Promise<void> {
    await rm(join(this.dir, upload.file), { force: true });
  }
}
