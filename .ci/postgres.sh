#!/usr/bin/env bash
# Finds or starts the PostgreSQL server the store suites run against, and prints its URL.
#   1. $PROVENANCE_TEST_DATABASE_URL, as given;
#   2. else the server on 127.0.0.1:$PROVENANCE_CI_PG_PORT (default 5432; the development
#      machines run one with trust authentication);
#   3. else installs Debian's postgresql, starts its cluster (pg_ctlcluster: no systemd needed)
#      and creates a login role with a password, so the default scram rules of pg_hba.conf hold.
# Whichever server is used, the server binaries must be on this machine too: the outage test
# (test/postgres/outage.test.ts) stops and starts a throwaway cluster of its own with initdb and
# pg_ctl, never the shared server. So in cases 1 and 2 Debian's postgresql is installed when they
# are missing, without creating or starting a cluster of its own (a server answers already).
# The tests create (and drop) their own databases on it; with CI set, a server that does not
# answer fails the run (vitest.config.ts) instead of skipping those suites.
set -euo pipefail

server_binaries() { ls /usr/lib/postgresql/*/bin/initdb /usr/lib/postgresql/*/bin/pg_ctl >/dev/null 2>&1; }

# Installs Debian's postgresql when its server binaries are missing. With "binaries-only", the
# package's post-install creates no `main` cluster (so none is started next to the server in
# use): postgresql-common reads create_main_cluster from createcluster.conf, which includes
# createcluster.d/, and a drop-in there says off for the length of the install.
install_server() {
  server_binaries && return 0
  local dropin=""
  if [ "${1:-}" = binaries-only ]; then
    dropin=/etc/postgresql-common/createcluster.d/provenance-ci-no-main-cluster.conf
    mkdir -p "$(dirname "$dropin")"
    echo 'create_main_cluster = false' >"$dropin"
  fi
  echo "ci: installing Debian's postgresql (its server binaries are missing)" >&2
  local status=0
  { apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq postgresql; } >&2 || status=$?
  [ -z "$dropin" ] || rm -f "$dropin"
  [ "$status" -eq 0 ] || { echo "ci: installing postgresql failed (exit $status)" >&2; exit "$status"; }
  server_binaries || { echo "ci: postgresql is installed but /usr/lib/postgresql/*/bin/initdb is not there" >&2; exit 1; }
}

if [ -n "${PROVENANCE_TEST_DATABASE_URL:-}" ]; then
  install_server binaries-only
  echo "$PROVENANCE_TEST_DATABASE_URL"
  exit 0
fi

port="${PROVENANCE_CI_PG_PORT:-5432}"
answers() { (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null; }

if answers "$port"; then
  install_server binaries-only
  echo "postgres://postgres@127.0.0.1:${port}/postgres"
  exit 0
fi

echo "ci: no PostgreSQL on 127.0.0.1:${port}; installing Debian's postgresql" >&2
install_server
version="$(ls /usr/lib/postgresql | sort -n | tail -1)"
if ! pg_lsclusters -h | awk -v v="$version" '$1 == v && $2 == "main" { found = 1 } END { exit !found }'; then
  pg_createcluster "$version" main >&2
fi
# The cluster's own port (5433 and up when 5432 is someone else's).
cluster_port="$(pg_lsclusters -h | awk -v v="$version" '$1 == v && $2 == "main" { print $3 }')"
pg_ctlcluster "$version" main start >&2 || true
for _ in $(seq 1 60); do
  answers "$cluster_port" && break
  sleep 0.5
done
answers "$cluster_port" || { echo "ci: PostgreSQL ${version}/main did not start" >&2; exit 1; }
password="ci-$(od -An -N8 -tx1 /dev/urandom | tr -d ' \n')"
runuser -u postgres -- psql -p "$cluster_port" -qtA -v ON_ERROR_STOP=1 >&2 <<SQL
DO \$\$ BEGIN
  IF NOT EXISTS (SELECT FROM pg_roles WHERE rolname = 'provenance_ci') THEN CREATE ROLE provenance_ci LOGIN CREATEDB; END IF;
END \$\$;
ALTER ROLE provenance_ci PASSWORD '${password}';
SQL
echo "postgres://provenance_ci:${password}@127.0.0.1:${cluster_port}/postgres"
