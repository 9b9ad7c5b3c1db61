#!/bin/sh
# deid-desktop launcher: runs the bundled app from an unpacked tarball, no install needed.
# Installed as both `deid-desktop` (the desktop app) and `deid` (the command line); the
# name it is called by picks the program. Follows symlinks, so it can be linked onto PATH.
self=$(readlink -f "$0" 2>/dev/null || echo "$0")
here=$(cd "$(dirname "$self")" && pwd -P)
case "$(basename "$0")" in
    deid) program=deid ;;
    *) program=deid-desktop ;;
esac
if [ ! -x "$here/app/$program" ]; then
    echo "$program: the bundle is missing at $here/app (unpack the whole tarball)" >&2
    exit 127
fi
exec "$here/app/$program" "$@"
