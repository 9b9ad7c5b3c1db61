#!/bin/sh
# Install or uninstall deid-desktop from the unpacked tarball. No network, no Python needed.
#
#   ./install.sh                 per user when run as a user, system-wide when run as root
#   ./install.sh --user          ~/.local/lib/deid-desktop, commands in ~/.local/bin
#   sudo ./install.sh --system   /opt/deid-desktop, commands in /usr/local/bin
#   ./install.sh --prefix DIR    DIR/lib/deid-desktop, DIR/bin, DIR/share
#   ./install.sh --uninstall [--user | --system | --prefix DIR]
#
# Before copying, every file of the bundle is checked against MANIFEST.sha256. The
# install records what it put outside its own folder (commands, desktop entry, icons,
# the .deid.json project type) in <app folder>/.installed-files; --uninstall removes
# exactly those, then the folder. Settings, the register and keyring entries belong to
# the user and are never touched.
set -eu

NAME=deid-desktop
here=$(cd "$(dirname "$(readlink -f "$0" 2>/dev/null || echo "$0")")" && pwd -P)

usage() { sed -n '2,15p' "$0" | sed 's/^# \{0,1\}//'; }
die() { echo "install.sh: $*" >&2; exit 1; }

mode="" prefix="" action=install
while [ $# -gt 0 ]; do
    case "$1" in
        --user) mode=user ;;
        --system) mode=system ;;
        --prefix) [ $# -ge 2 ] || die "--prefix needs a folder"; mode=prefix; prefix=$2; shift ;;
        --prefix=*) mode=prefix; prefix=${1#--prefix=} ;;
        --uninstall) action=uninstall ;;
        -h|--help) usage; exit 0 ;;
        *) die "unknown option: $1 (see --help)" ;;
    esac
    shift
done
if [ -z "$mode" ]; then
    if [ "$(id -u)" -eq 0 ]; then mode=system; else mode=user; fi
fi

case "$mode" in
    user)
        [ -n "${HOME:-}" ] || die "HOME is not set"
        APPDIR=$HOME/.local/lib/$NAME
        BINDIR=$HOME/.local/bin
        DATADIR=${XDG_DATA_HOME:-$HOME/.local/share}
        ;;
    system)
        [ "$(id -u)" -eq 0 ] || die "a system-wide install needs root (sudo ./install.sh --system)"
        APPDIR=/opt/$NAME
        BINDIR=/usr/local/bin
        DATADIR=/usr/local/share
        if dpkg-query -W -f '${Status}' "$NAME" 2>/dev/null | grep -q "ok installed"; then
            die "the $NAME .deb package is installed in /opt/$NAME: remove it first (apt remove $NAME) or install per user"
        fi
        ;;
    prefix)
        [ -n "$prefix" ] || die "--prefix needs a folder"
        mkdir -p "$prefix"
        prefix=$(cd "$prefix" && pwd -P)
        APPDIR=$prefix/lib/$NAME
        BINDIR=$prefix/bin
        DATADIR=$prefix/share
        ;;
esac
MANIFEST=$APPDIR/.installed-files

refresh_databases() {
    if [ -d "$DATADIR/mime/packages" ] && command -v update-mime-database >/dev/null 2>&1; then
        update-mime-database "$DATADIR/mime" >/dev/null 2>&1 || true
    fi
    if [ -d "$DATADIR/applications" ] && command -v update-desktop-database >/dev/null 2>&1; then
        update-desktop-database -q "$DATADIR/applications" >/dev/null 2>&1 || true
    fi
    if [ -f "$DATADIR/icons/hicolor/index.theme" ] && command -v gtk-update-icon-cache >/dev/null 2>&1; then
        gtk-update-icon-cache -q -t "$DATADIR/icons/hicolor" >/dev/null 2>&1 || true
    fi
}

uninstall() {
    [ -f "$MANIFEST" ] || die "no $NAME installed in $APPDIR (no $MANIFEST)"
    # files and links first, then the folders the install created (deepest first)
    grep -v '^d ' "$MANIFEST" | while IFS= read -r line; do
        path=${line#? }
        case "$line" in
            "l "*) if [ -L "$path" ]; then
                       case "$(readlink "$path")" in "$APPDIR"/*) rm -f "$path" ;; esac
                   fi ;;
            "f "*) rm -f "$path" ;;
        esac
    done || true
    # derived databases that only our files fed: removed when nothing else is left
    if [ -d "$DATADIR/mime/packages" ] && [ -z "$(ls -A "$DATADIR/mime/packages")" ]; then
        find "$DATADIR/mime" -mindepth 1 -maxdepth 1 ! -name packages -exec rm -rf {} +
    fi
    if [ -d "$DATADIR/applications" ] && ! ls "$DATADIR/applications"/*.desktop >/dev/null 2>&1; then
        rm -f "$DATADIR/applications/mimeinfo.cache"
    fi
    dirs=$(grep '^d ' "$MANIFEST" | sed 's/^d //' | sort -r || true)
    rm -rf "$APPDIR"
    printf '%s\n' "$dirs" | while IFS= read -r dir; do
        [ -n "$dir" ] && rmdir "$dir" 2>/dev/null
        :
    done
    refresh_databases
    echo "$NAME uninstalled from $APPDIR (your settings, register and keyring entries are kept)"
}

# mkdir -p that records every folder it creates, so uninstall can remove them again
made_dirs=""
make_dir() {
    missing=""
    d=$1
    while [ ! -d "$d" ]; do missing="$d
$missing"; d=$(dirname "$d"); done
    mkdir -p "$1"
    made_dirs="$made_dirs$missing"
}

install_app() {
    [ -x "$here/app/$NAME" ] && [ -x "$here/app/deid" ] || die "run install.sh from the unpacked tarball (app/ is missing)"
    if command -v sha256sum >/dev/null 2>&1; then
        (cd "$here" && sha256sum --quiet --strict -c MANIFEST.sha256) \
            || die "the unpacked files do not match MANIFEST.sha256: unpack the tarball again"
    fi
    if [ -e "$APPDIR" ]; then
        [ -f "$MANIFEST" ] || die "$APPDIR exists and was not made by install.sh: remove it first"
        echo "replacing the $NAME already in $APPDIR"
        "$APPDIR/install.sh" --uninstall --"$mode" ${prefix:+"$prefix"} >/dev/null
    fi
    for cmd in "$NAME" deid; do
        if [ -e "$BINDIR/$cmd" ] || [ -L "$BINDIR/$cmd" ]; then
            die "$BINDIR/$cmd already exists and is not ours: remove it first"
        fi
    done

    make_dir "$(dirname "$APPDIR")"
    staging=$APPDIR.installing.$$
    trap 'rm -rf "$staging"' EXIT
    cp -R "$here/app" "$staging"
    cp "$here/install.sh" "$staging/install.sh"
    for doc in THIRD_PARTY_LICENSES README-INSTALL.txt; do
        [ -f "$here/$doc" ] && cp "$here/$doc" "$staging/$doc"
    done
    chmod -R u+rwX,go+rX,go-w "$staging"
    mv "$staging" "$APPDIR"
    trap - EXIT

    : > "$MANIFEST"
    make_dir "$BINDIR"
    for cmd in "$NAME" deid; do
        ln -s "$APPDIR/$cmd" "$BINDIR/$cmd"
        echo "l $BINDIR/$cmd" >> "$MANIFEST"
    done
    put() {  # put SOURCE DEST: copy one shared file and record it
        make_dir "$(dirname "$2")"
        cp "$1" "$2"
        chmod 644 "$2"
        echo "f $2" >> "$MANIFEST"
    }
    make_dir "$DATADIR/applications"
    sed "s|^Exec=$NAME |Exec=\"$APPDIR/$NAME\" |" "$here/share/applications/$NAME.desktop" \
        > "$DATADIR/applications/$NAME.desktop"
    echo "f $DATADIR/applications/$NAME.desktop" >> "$MANIFEST"
    put "$here/share/icons/hicolor/scalable/apps/$NAME.svg" "$DATADIR/icons/hicolor/scalable/apps/$NAME.svg"
    put "$here/share/icons/hicolor/256x256/apps/$NAME.png" "$DATADIR/icons/hicolor/256x256/apps/$NAME.png"
    put "$here/share/icons/hicolor/48x48/apps/$NAME.png" "$DATADIR/icons/hicolor/48x48/apps/$NAME.png"
    put "$here/share/mime/packages/$NAME.xml" "$DATADIR/mime/packages/$NAME.xml"
    printf '%s' "$made_dirs" | sed '/^$/d; s/^/d /' >> "$MANIFEST"
    refresh_databases

    echo "$NAME installed in $APPDIR"
    echo "commands: $BINDIR/$NAME and $BINDIR/deid"
    case ":$PATH:" in *":$BINDIR:"*) ;; *) echo "note: $BINDIR is not on your PATH" ;; esac
    "$APPDIR/deid" --version
}

if [ "$action" = uninstall ]; then uninstall; else install_app; fi
