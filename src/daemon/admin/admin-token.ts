// The admin token's header. The daemon writes a fresh token to a 0600 file in its data dir at
// each start and keeps only its hash; the admin commands read the file and send it here.
export const ADMIN_TOKEN_HEADER = 'x-provenance-admin-token';
