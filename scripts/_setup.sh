# Shared set-up for scripts/demo and scripts/test (sourced, not run).
# ensure_apt PKG...   installs the Debian packages that are missing (sudo when not root)
# ensure_venv EXTRAS  creates .venv and installs deid-desktop into it, editable

ensure_apt() {
  local missing="" p sudo=""
  for p in "$@"; do dpkg -s "$p" >/dev/null 2>&1 || missing="$missing $p"; done
  [ -z "$missing" ] && return 0
  command -v apt-get >/dev/null || { echo "Missing system packages:$missing (install them with your package manager)" >&2; return 1; }
  [ "$(id -u)" -ne 0 ] && sudo="sudo"
  echo "Installing system packages:$missing"
  $sudo apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends $missing >/dev/null
}

ensure_venv() {
  local py=${PYTHON:-python3}
  # a .venv left half-made (interrupted) has no working pip: make it again
  if ! .venv/bin/python -m pip --version >/dev/null 2>&1; then
    rm -rf .venv
    "$py" -m venv .venv || {
      echo "Could not create .venv: install Python's venv module (Debian: apt-get install python3-venv) and retry." >&2
      return 1
    }
  fi
  .venv/bin/python -m pip install -q --disable-pip-version-check -e ".$1"
}

# Qt's runtime libraries: offscreen rendering (tests, self-test) and real windows (xcb).
QT_OFFSCREEN_PKGS="libglib2.0-0 libgl1 libegl1 libfontconfig1 libxkbcommon0 libdbus-1-3 fonts-dejavu-core"
QT_WINDOW_PKGS="libx11-xcb1 libxcb-cursor0 libxcb-icccm4 libxcb-image0 libxcb-keysyms1 libxcb-randr0
  libxcb-render-util0 libxcb-shape0 libxcb-xkb1 libxkbcommon-x11-0"
