#!/usr/bin/env bash
# Installs what the test suite needs beyond npm packages: Debian's Chromium for the window's browser tests.
# Safe to run again: does nothing when Chromium is already there. Without root or apt, it says what to do and
# the browser tests then skip with that reason.
set -euo pipefail

if [ -x /usr/bin/chromium ]; then
  echo "test setup: chromium present ($(/usr/bin/chromium --version 2>/dev/null | head -n1))"
  exit 0
fi

if [ "$(id -u)" = "0" ] && command -v apt-get >/dev/null 2>&1; then
  echo "test setup: installing Debian chromium for the window tests"
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq >/dev/null
  apt-get install -y -qq chromium >/dev/null
  echo "test setup: $(/usr/bin/chromium --version 2>/dev/null | head -n1)"
else
  echo "test setup: /usr/bin/chromium is missing and cannot be installed here (needs root and apt-get)."
  echo "            Install it (sudo apt-get install -y chromium) to run the window tests; they skip without it."
fi
