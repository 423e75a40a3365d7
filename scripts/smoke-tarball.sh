#!/usr/bin/env bash
# Installs the packed tarball the way a user does, in fresh projects outside the repository:
#   1. no optional package installed (and fast-check 3 present, which must not clash with ctxloom):
#      `tsc --strict` with skipLibCheck false over a file importing every subpath but ctxloom/ai-sdk,
#      then every subpath is imported at run time and the quickstart example runs from that folder;
#   2. the same with `ai` installed, for ctxloom/ai-sdk.
# Needs the npm registry (for typescript, @types/node, fast-check and ai). Run after `npm run build`.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

node_types=$(node -p "require('$root/package.json').devDependencies['@types/node']")
typescript=$(node -p "require('$root/package.json').devDependencies.typescript")
ai_version=$(node -p "require('$root/package.json').devDependencies.ai")

tarball="$work/$(cd "$root" && npm pack --silent --pack-destination "$work" | tail -n 1)"
echo "packed $(basename "$tarball") ($(du -k "$tarball" | cut -f1) KiB)"

subpaths=$(node -e "
  const pkg = require('$root/package.json');
  const names = Object.keys(pkg.exports).filter((key) => key !== './package.json' && key !== './ai-sdk');
  console.log(names.map((key) => (key === '.' ? 'ctxloom' : 'ctxloom/' + key.slice(2))).join(' '));
")

make_project() {
  local dir=$1
  shift
  mkdir -p "$dir"
  cat >"$dir/package.json" <<'JSON'
{ "name": "ctxloom-smoke", "private": true, "type": "module" }
JSON
  cat >"$dir/tsconfig.json" <<'JSON'
{
  "compilerOptions": {
    "target": "ES2022",
    "module": "NodeNext",
    "moduleResolution": "NodeNext",
    "strict": true,
    "skipLibCheck": false,
    "exactOptionalPropertyTypes": true,
    "noUncheckedIndexedAccess": true,
    "types": ["node"],
    "outDir": "out"
  },
  "include": ["*.ts"]
}
JSON
  (cd "$dir" && npm install --no-audit --no-fund --loglevel=error "$tarball" "typescript@$typescript" \
    "@types/node@$node_types" "$@")
}

echo "== project without optional packages"
plain="$work/plain"
make_project "$plain" fast-check@3
{
  # ctxloom/testing runs inside the user's own vitest with fast-check (documented, not peers): it is
  # typechecked here (a type-only import), not loaded.
  echo "import type * as testing from 'ctxloom/testing';"
  echo "export type Testing = typeof testing;"
  i=0
  for name in $subpaths; do
    [ "$name" = ctxloom/testing ] && continue
    echo "import * as m$i from '$name';"
    i=$((i + 1))
  done
  echo "const modules: Record<string, object> = {"
  i=0
  for name in $subpaths; do
    [ "$name" = ctxloom/testing ] && continue
    echo "  '$name': m$i,"
    i=$((i + 1))
  done
  echo "};"
  echo "for (const [name, module] of Object.entries(modules)) process.stdout.write(\`\${name}: \${Object.keys(module).length} exports\\n\`);"
} >"$plain/subpaths.ts"
cp "$root/examples/quickstart.ts" "$plain/quickstart.ts"
(cd "$plain" && npx tsc -p . && node out/subpaths.js && node out/quickstart.js)

echo "== project with ai $ai_version"
with_ai="$work/with-ai"
make_project "$with_ai" "ai@$ai_version" "@types/json-schema@7.0.15" # the AI SDK's .d.ts need it without skipLibCheck
cp "$root/examples/ai-sdk-smoke.ts" "$with_ai/ai-sdk-smoke.ts"
# The AI SDK's own .d.ts files do not compile under exactOptionalPropertyTypes; ctxloom's do (above).
(cd "$with_ai" && sed -i '/exactOptionalPropertyTypes/d' tsconfig.json && npx tsc -p . && node out/ai-sdk-smoke.js)
echo "smoke test passed"
