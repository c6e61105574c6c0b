#!/bin/sh
# A journaled ext4 for bench:scale's temp folders, on a machine whose disk is ext4 WITHOUT a
# journal (this workplace's VM: no /proc/fs/jbd2 entry for it). There the kernel checks every
# recently deleted inode one by one at each create, so creating files within minutes of
# deleting many is quadratic (100k empty files: 2 s of kernel time, 72 s after a delete);
# a desktop's ext4 has a journal and never does this. Needs root (loop device, mount).
# Usage: sh bench/journaled-tmp.sh [MOUNTPOINT=/mnt/nm-bench] [SIZE=20G]
#        then SCALE_TMP=MOUNTPOINT npm run bench:scale
set -eu
MNT=${1:-/mnt/nm-bench}
SIZE=${2:-20G}
IMG=${IMG:-/var/tmp/nm-bench-ext4.img}
if mountpoint -q "$MNT"; then echo "$MNT is already mounted"; exit 0; fi
truncate -s "$SIZE" "$IMG"
# 8M inodes: every tree of a 100k and a 1M run (browser mode, the mirror, two cp -r copies) fits
mkfs.ext4 -q -F -N 8000000 "$IMG"
mkdir -p "$MNT"
mount -o loop "$IMG" "$MNT"
echo "journaled ext4 at $MNT (image $IMG); remove with: umount $MNT && rm $IMG"
