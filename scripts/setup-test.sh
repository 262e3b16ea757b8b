#!/usr/bin/env bash
# Installs what the test suite needs beyond the project's npm packages: Debian's Chromium for the window's
# browser tests, and the real assistant CLI for one tool-mode test. Safe to run again: does nothing when both are
# there. What cannot be installed is reported, and the tests that need it skip and say why.
set -euo pipefail

if [ -x /usr/bin/chromium ]; then
  echo "test setup: chromium present ($(/usr/bin/chromium --version 2>/dev/null | head -n1))"
elif [ "$(id -u)" = "0" ] && command -v apt-get >/dev/null 2>&1; then
  echo "test setup: installing Debian chromium for the window tests"
  export DEBIAN_FRONTEND=noninteractive
  if apt-get update -qq >/dev/null && apt-get install -y -qq chromium >/dev/null; then
    echo "test setup: $(/usr/bin/chromium --version 2>/dev/null | head -n1)"
  else
    echo "test setup: installing chromium failed; the window tests will skip and say why"
  fi
else
  echo "test setup: /usr/bin/chromium is missing and cannot be installed here (needs root and apt-get)."
  echo "            Install it (sudo apt-get install -y chromium) to run the window tests; they skip without it."
fi

# The real assistant CLI, for test/tool-real-cli.test.ts (tool mode against the vendor's actual binary, pointed at
# the local simulator). It is large and is not a dependency of the project, so it goes into a git-ignored cache,
# pinned to the version the recordings in test/fixtures/cli-recordings were made with. Without it that one test
# file skips and says why. SKIP_REAL_CLI=1 skips the download.
real_cli_version=2.1.330
real_cli_dir=.cache/real-cli
real_cli_bin="$real_cli_dir/node_modules/@anthropic-ai/claude-code/bin/claude.exe"
if [ "${SKIP_REAL_CLI:-}" = "1" ]; then
  echo "test setup: SKIP_REAL_CLI=1, the real-CLI test will skip"
elif [ -x "$real_cli_bin" ] && "$real_cli_bin" --version 2>/dev/null | grep -q "^$real_cli_version "; then
  echo "test setup: real assistant CLI $real_cli_version present"
else
  echo "test setup: installing the real assistant CLI $real_cli_version into $real_cli_dir (for one test file)"
  mkdir -p "$real_cli_dir"
  [ -f "$real_cli_dir/package.json" ] || echo '{"private":true}' > "$real_cli_dir/package.json"
  if ! npm install --prefix "$real_cli_dir" --no-save --no-audit --no-fund "@anthropic-ai/claude-code@$real_cli_version" >/dev/null 2>&1 \
     || ! "$real_cli_bin" --version >/dev/null 2>&1; then
    echo "test setup: could not install or run the real assistant CLI; test/tool-real-cli.test.ts will skip"
  else
    echo "test setup: $("$real_cli_bin" --version)"
  fi
fi
