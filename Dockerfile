# syntax=docker/dockerfile:1
# The fleet console: one container, one data volume (/data). Build, run, back up: docs/OPERATIONS.md.
#
# Base image: the official Deno image pinned to the exact Deno the project is developed and tested with (2.9.6), so
# Deno is part of the image instead of an npm download at build time; it brings the non-root user `deno` (uid 1993) and
# tini as PID 1 (forwards SIGTERM from `docker stop`, reaps zombies).
#
# What runs holds the server's dependencies only: deploy/image/deno.json is the import map of the server and of the
# tasks the image documents (start, user, backup, restore, audit-verify), pinned by deploy/image/deno.lock, a subset of
# deno.lock. The test and build tools of the root deno.json (vitest, playwright-core, lighthouse, s3rver, autocannon,
# esbuild, primereact) stay in the build stage; tests/ops/image.test.ts builds this file tree without docker and checks it.
ARG DENO_IMAGE=denoland/deno:2.9.6

# --- stage 1: the web bundle (every npm dependency, the build tools included) ---------------------------------------
FROM ${DENO_IMAGE} AS build
WORKDIR /src
COPY deno.json deno.lock ./
# The npm packages into ./node_modules exactly as deno.lock pins them (a stale lock fails the build).
RUN deno install --frozen
COPY . .
RUN deno task build

# --- stage 2: the server's npm dependencies only --------------------------------------------------------------------
FROM ${DENO_IMAGE} AS deps
WORKDIR /app
COPY deploy/image/deno.json deploy/image/deno.lock ./
RUN deno install --frozen

# --- stage 3: what runs ----------------------------------------------------------------------------------------------
FROM ${DENO_IMAGE}
WORKDIR /app
# Sources, node_modules and web/dist, owned by root: the server cannot modify its own code.
COPY deploy/image/deno.json deploy/image/deno.lock ./
COPY server ./server
COPY shared ./shared
COPY scripts/backup.ts scripts/backup_files.ts scripts/restore.ts scripts/audit_verify.ts ./scripts/
COPY --from=deps /app/node_modules ./node_modules
COPY --from=build /src/web/dist ./web/dist
# xz-utils: every firmware upload is tested with `xz --test` while it streams (the server does not start without it).
# openssl: for its libcrypto, which hashes uploads with less CPU than node:crypto (server/files/file_hashes.ts).
RUN apt-get update \
 && apt-get install -y --no-install-recommends xz-utils openssl \
 && rm -rf /var/lib/apt/lists/*
# The bundle is newer than every source file, so ensureWebBundle never rebuilds it at run time.
RUN touch web/dist/index.html \
 && mkdir -p /data \
 && chown deno:deno /data

ENV HOST=0.0.0.0 \
    PORT=8000 \
    DATA_DIR=/data \
    DENO_NO_UPDATE_CHECK=1 \
    DENO_NO_PROMPT=1
VOLUME /data
EXPOSE 8000
USER deno

# The image has no curl: a Deno one-liner asks /healthz (200 once the database is open).
HEALTHCHECK --interval=30s --timeout=5s --start-period=60s --retries=3 \
  CMD ["deno", "eval", "const r = await fetch(`http://127.0.0.1:${Deno.env.get('PORT') ?? '8000'}/healthz`); if (!r.ok) Deno.exit(1);"]

# --cached-only (as in every task of deploy/image/deno.json): everything comes from /app/node_modules; nothing needs
# the network. SIGTERM (docker stop) drains requests for SHUTDOWN_GRACE_SECONDS (default 8, under docker's 10 s).
CMD ["deno", "run", "-A", "--cached-only", "--v8-flags=--expose-gc,--max-semi-space-size=4", "server/main.ts"]
