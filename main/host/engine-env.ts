/**
 * The environment the engine's own process starts with: the parent's, plus
 * `MALLOC_ARENA_MAX=2` unless it is set already. glibc gives each thread that allocates
 * (SQLite's, the index worker's, libuv's) an arena of its own and keeps what they freed.
 * Back to back by hand at 100k, a first run peaked at 460 MB with two arenas against 530 MB
 * without; at 1M single runs moved more between runs than this (bench/README.md). Other C
 * libraries ignore it.
 */
export function engineEnv(base: NodeJS.ProcessEnv): NodeJS.ProcessEnv {
  return base['MALLOC_ARENA_MAX'] !== undefined ? base : { ...base, MALLOC_ARENA_MAX: '2' };
}
