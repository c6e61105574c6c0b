/** The one function the release workflow test uses from js-yaml (installed with electron-builder; it ships no types). */
declare module 'js-yaml' {
  export function load(text: string): unknown;
}
