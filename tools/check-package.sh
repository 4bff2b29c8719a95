#!/bin/sh
# Checks the tarball users get, not the folder: packed with pnpm, so `publishConfig` applies
# (the workspace-only `@petstore/source` export condition and `src/` are not in it).
# Run from a package folder after `pnpm build`.
set -eu
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
pnpm pack --pack-destination "$out" >/dev/null
tarball=$(ls "$out"/*.tgz)
publint --strict "$tarball"
# Every resolution mode a user may have: node10, node16 (CJS and ESM), bundler; a package with
# subpath exports passes `--profile node16` (node10 cannot resolve subpaths).
attw "$tarball" "$@"
