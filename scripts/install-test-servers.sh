#!/usr/bin/env bash
# Installs Debian's PgBouncer and PostgreSQL 15 for the pooler and failover tests (the other
# tests use the embedded PostgreSQL and need nothing installed).
set -euo pipefail
if [ -x /usr/sbin/pgbouncer ] && [ -x /usr/lib/postgresql/15/bin/pg_basebackup ]; then exit 0; fi
if [ "$(id -u)" != "0" ] || ! command -v apt-get >/dev/null 2>&1; then
  echo "install-test-servers: needs root and apt-get; install Debian's pgbouncer and postgresql-15 packages by hand" >&2
  exit 1
fi
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq
apt-get install -y -qq pgbouncer postgresql-15 >/dev/null
# The packages start their own servers; the tests start theirs on ports of their own.
service pgbouncer stop >/dev/null 2>&1 || true
service postgresql stop >/dev/null 2>&1 || true
