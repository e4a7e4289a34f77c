#!/usr/bin/env bash
# The real-clients suite (issue 9): the agent CLIs and frameworks users point at modelgate, run
# unchanged against `modelgate serve` with the simulator, on loopback only.
# Installs this folder from its lockfile (kept out of the project's own install), checks the
# suite's own code, then runs it with node's test runner. Needs the project's `npm ci` first
# (Node 24, TypeScript and ESLint come from the root node_modules).
set -euo pipefail
cd "$(dirname "$0")"
export PATH="$PWD/../node_modules/.bin:$PATH"
# Install scripts stay off (one would try to download prebuilt binaries); Claude Code's own
# postinstall only links its native binary from the platform package npm already installed.
npm ci --ignore-scripts --no-audit --no-fund --loglevel=error
node node_modules/@anthropic-ai/claude-code/install.cjs
home=$(mktemp -d)
echo "clients: claude $(HOME=$home node_modules/.bin/claude --version), gemini $(HOME=$home node_modules/.bin/gemini --version), $(HOME=$home node_modules/.bin/codex --version 2>/dev/null)"
rm -rf "$home"
tsc -p tsconfig.json
eslint .
# Every gateway and client run writes under one folder: removed when all pass, kept for a failure.
runs=$(mktemp -d "${TMPDIR:-/tmp}/modelgate-clients-XXXXXX")
if TMPDIR="$runs" node --test --test-concurrency=1 --test-timeout=600000 "test/*.test.ts"; then
  rm -rf "$runs"
else
  echo "client outputs, requests and gateway logs kept in $runs"
  exit 1
fi
