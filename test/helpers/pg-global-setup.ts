// The `postgres` test project's set-up: one database for the whole run, dropped at its end.
import type { TestProject } from 'vitest/node';
import { createTestDatabase } from './postgres.js';

declare module 'vitest' {
  export interface ProvidedContext {
    pgDatabaseUrl: string;
  }
}

export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  const database = await createTestDatabase();
  project.provide('pgDatabaseUrl', database.url);
  return () => database.drop();
}
