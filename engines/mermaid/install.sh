#!/usr/bin/env bash
# Install what the Mermaid engine needs when this machine allows it: Debian's Chromium and the
# Liberation fonts (Chromium draws Mermaid's "arial" with Liberation Sans, and the PNG rasterizer must
# find the same font), then the pinned npm packages (mermaid, its external ZenUML diagram
# @mermaid-js/mermaid-zenuml, puppeteer-core; no browser download).
# It never fails: a machine without them runs and tests without the engine (it says what it lacks).
set -u
here=$(cd "$(dirname "$0")" && pwd)

have_chromium() {
	command -v chromium >/dev/null 2>&1 || command -v chromium-browser >/dev/null 2>&1 \
		|| command -v google-chrome-stable >/dev/null 2>&1 || command -v google-chrome >/dev/null 2>&1
}

if ! have_chromium || [ ! -e /usr/share/fonts/truetype/liberation/LiberationSans-Regular.ttf ]; then
	if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
		(apt-get update -qq && apt-get install -y -qq chromium fonts-liberation >/dev/null) \
			|| echo "mermaid engine: apt-get could not install chromium and fonts-liberation"
	else
		echo "mermaid engine: chromium or fonts-liberation is missing (apt-get install chromium fonts-liberation)"
	fi
fi

if command -v npm >/dev/null 2>&1; then
	stamp="$here/node_modules/.package-lock.json"
	if [ ! -f "$stamp" ] || [ "$here/package-lock.json" -nt "$stamp" ]; then
		PUPPETEER_SKIP_DOWNLOAD=1 npm ci --prefix "$here" --ignore-scripts --no-audit --no-fund --loglevel=error \
			|| echo "mermaid engine: npm ci failed; Mermaid renders only through Kroki here"
	fi
else
	echo "mermaid engine: node and npm are missing; Mermaid renders only through Kroki here"
fi
exit 0
