/**
 * The environment the engine's own process starts with: the parent's, plus
 * `MALLOC_ARENA_MAX=2` unless it is set already. glibc gives each thread that allocates
 * (SQLite's, the index worker's, libuv's) an arena of its own and keeps what they freed; with
 * two, a first walk of 1M objects peaked at 1,532 MiB instead of ~1,650, and 100k at 460
 * instead of 530 MB (bench/README.md). Other C libraries ignore it.
 */
export function engineEnv(base: NodeJS.ProcessEnv): NodeJS.ProcessEnv {
  return base['MALLOC_ARENA_MAX'] !== undefined ? base : { ...base, MALLOC_ARENA_MAX: '2' };
}
