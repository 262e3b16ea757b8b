#!/usr/bin/env bash
# Installs the seven coding agents that `npm run test:agents` runs (test/agents), pinned, each into its own prefix
# under the git-ignored .cache/agents. Nothing here is a dependency of the project. The agents run on the Node that
# runs the suite (under npm, the project's own Node 24). Safe to run again: an agent whose pinned version is present
# is left alone. What cannot be installed is reported, and its tests skip and say why. AGENTS_ONLY=opencode,pi
# limits the run to those agents.
set -uo pipefail

cache=.cache/agents
mkdir -p "$cache"

# name | npm package@version | binary inside the prefix
agents=(
  "opencode|opencode-ai@1.18.33|node_modules/.bin/opencode"
  "kilo|@kilocode/cli@7.7.7|node_modules/.bin/kilo"
  "cn|@continuedev/cli@1.5.47|node_modules/.bin/cn"
  "cline|cline@3.0.65|node_modules/.bin/cline"
  "qwen|@qwen-code/qwen-code@0.15.10|node_modules/.bin/qwen"
  "pi|@mariozechner/pi-coding-agent@0.73.1|node_modules/.bin/pi"
  "codex|@openai/codex@0.171.0|node_modules/.bin/codex"
)

install_into() { # dir spec
  local dir=$1 spec=$2
  mkdir -p "$dir"
  [ -f "$dir/package.json" ] || echo '{"private":true}' > "$dir/package.json"
  npm install --prefix "$dir" --no-save --no-audit --no-fund --loglevel=error "$spec" >"$dir/install.log" 2>&1
}

for entry in "${agents[@]}"; do
  IFS='|' read -r name spec bin <<<"$entry"
  if [ -n "${AGENTS_ONLY:-}" ] && [[ ",$AGENTS_ONLY," != *",$name,"* ]]; then continue; fi
  dir="$cache/$name"
  if [ -f "$dir/.installed" ] && [ "$(cat "$dir/.installed")" = "$spec" ] && [ -e "$dir/$bin" ]; then
    echo "agents setup: $spec present"
    continue
  fi
  rm -f "$dir/.installed"
  if install_into "$dir" "$spec" && [ -e "$dir/$bin" ]; then
    echo "$spec" > "$dir/.installed"
    echo "agents setup: $spec installed"
  else
    echo "agents setup: could not install $spec (see $dir/install.log); its tests will skip"
  fi
done
