#!/usr/bin/env bash
# Everything CI checks of the extension, in order: types (tsc --strict), lint
# (eslint, typescript-eslint recommended), the
# bundle (esbuild), the unit tests (node --test), the grammar (scope
# assertions and every example's snapshot), the .vsix (@vscode/vsce) and what
# it holds. Needs `npm ci --ignore-scripts` in editors/vscode first.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
npm run --silent typecheck
npm run --silent lint
npm run --silent build
npm run --silent build-tests
npm run --silent test-unit
npm run --silent test-grammar
npm run --silent package
node test/vsix_check.js
