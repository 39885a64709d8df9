#!/usr/bin/env bash
# make_hook_repo.sh SRC_ROOT HOOK_REPO USER_REPO: HOOK_REPO becomes a clone of
# this repository (SRC_ROOT) with the working tree's .pre-commit-hooks.yaml
# committed on top (so an uncommitted edit is what gets tested), and
# USER_REPO gets a .pre-commit-config.yaml that names HOOK_REPO at that
# commit with the torch-tidy hook, committed.
set -euo pipefail
src=$1 hooks=$2 user=$3
git clone -q --no-hardlinks "$src" "$hooks"
cp "$src/.pre-commit-hooks.yaml" "$hooks/.pre-commit-hooks.yaml"
git -C "$hooks" add .pre-commit-hooks.yaml
if ! git -C "$hooks" diff --cached --quiet; then
  git -C "$hooks" -c user.email=t@example.org -c user.name=t commit -q -m "working tree's hooks"
fi
rev=$(git -C "$hooks" rev-parse HEAD)
cat > "$user/.pre-commit-config.yaml" <<YAML
repos:
  - repo: file://$hooks
    rev: $rev
    hooks:
      - id: torch-tidy
YAML
git -C "$user" add .pre-commit-config.yaml
git -C "$user" commit -q -m "pre-commit: torch-tidy"
