/**
 * Shell completion scripts (bash, zsh) generated from the same definitions as --help
 * (command-spec.ts): commands, subcommands, each form's options, and the values a shell can
 * offer (folders, files, fixed words). A command added to the definitions completes at once.
 */
import { acceptedOptions } from './args.js';
import type { CommandSpec, Completion, FormSpec, OptionSpec, PositionalSpec, ProgramSpec } from './command-spec.js';
import { formsOf } from './help.js';

export const SHELLS = ['bash', 'zsh'] as const;
export type Shell = (typeof SHELLS)[number];

/** A word in single quotes, for either shell. */
const sq = (s: string): string => `'${s.replace(/'/g, `'\\''`)}'`;

const fnName = (bin: string): string => `_${bin.replace(/[^A-Za-z0-9]/g, '_')}`;

const formKey = (spec: CommandSpec, form: FormSpec): string => (form === spec ? spec.name : `${spec.name} ${form.name}`);

const entries = (spec: CommandSpec, form: FormSpec): [string, OptionSpec][] =>
  acceptedOptions(spec, form).map((n) => [n, spec.options[n]!] as [string, OptionSpec]);

/** bash: `compgen` for a completion kind. */
const bashValues = (c: Completion | undefined): string => {
  if (c === undefined) return '';
  if (c === 'dir') return 'compopt -o filenames 2>/dev/null; COMPREPLY=( $(compgen -d -- "$cur") )';
  if (c === 'file') return 'compopt -o filenames 2>/dev/null; COMPREPLY=( $(compgen -f -- "$cur") )';
  return `COMPREPLY=( $(compgen -W ${sq(c.join(' '))} -- "$cur") )`;
};

function bashScript(program: ProgramSpec): string {
  const fn = fnName(program.bin);
  const top = [...program.commands.map((c) => c.name), '--help', '--version'].join(' ');
  const perCommand: string[] = [];
  const values: string[] = [];
  const options: string[] = [];
  const positionals: string[] = [];
  for (const spec of program.commands) {
    const valued = Object.entries(spec.options)
      .filter(([, o]) => o.type === 'string')
      .map(([n]) => `--${n}`);
    const subs = (spec.subcommands ?? []).map((s) => s.name);
    perCommand.push(`    ${sq(spec.name)}) valued=${sq(` ${valued.join(' ')} `)}; subs=${sq(` ${subs.join(' ')} `)} ;;`);
    for (const [n, o] of Object.entries(spec.options))
      if (o.type === 'string') values.push(`    ${sq(`${spec.name} --${n}`)}) ${bashValues(o.complete) || ':'} ;;`);
    for (const form of formsOf(spec)) {
      const key = formKey(spec, form);
      const words = [...entries(spec, form).map(([n]) => `--${n}`), '--help'].join(' ');
      options.push(`    ${sq(key)}) COMPREPLY=( $(compgen -W ${sq(words)} -- "$cur") ) ;;`);
      form.positionals.forEach((p, i) => {
        const subsHere = form === spec && i === 0 && subs.length > 0 ? `COMPREPLY=( $(compgen -W ${sq(subs.join(' '))} -- "$cur") ); ` : '';
        positionals.push(`    ${sq(`${key}:${i}`)}) ${subsHere}${bashValues(p.complete) || ':'} ;;`);
      });
      const last = form.positionals[form.positionals.length - 1];
      if (last?.variadic === true) positionals.push(`    ${sq(`${key}:`)}*) ${bashValues(last.complete) || ':'} ;;`);
    }
    if (subs.length > 0 && (spec.abstract === true || spec.positionals.length === 0))
      positionals.push(`    ${sq(`${spec.name}:0`)}) COMPREPLY=( $(compgen -W ${sq(subs.join(' '))} -- "$cur") ) ;;`);
  }
  return `# bash completion for ${program.bin}, generated from its command definitions (the same as --help).
# Load it: source <(${program.bin} completion bash)
# or keep it: ${program.bin} completion bash > ~/.local/share/bash-completion/completions/${program.bin}
${fn}() {
  local cur=\${COMP_WORDS[COMP_CWORD]} prev=\${COMP_WORDS[COMP_CWORD-1]}
  COMPREPLY=()
  if (( COMP_CWORD == 1 )); then
    COMPREPLY=( $(compgen -W ${sq(top)} -- "$cur") )
    return 0
  fi
  local cmd=\${COMP_WORDS[1]} valued='' subs=''
  case "$cmd" in
${perCommand.join('\n')}
    *) return 0 ;;
  esac
  # the subcommand (the first positional, when it names one) and the index of the word being typed
  local key=$cmd n=0 i w skip=0
  for (( i = 2; i < COMP_CWORD; i++ )); do
    w=\${COMP_WORDS[i]}
    if (( skip )); then skip=0; continue; fi
    case "$w" in
      --*=*) ;;
      -*) [[ $valued == *" $w "* ]] && skip=1 ;;
      *) if [[ $key == "$cmd" && $n == 0 && $subs == *" $w "* ]]; then key="$cmd $w"; else n=$((n + 1)); fi ;;
    esac
  done
  if [[ $cur != -* && $valued == *" $prev "* ]]; then
    case "$cmd $prev" in
${values.join('\n')}
    esac
    return 0
  fi
  if [[ $cur == -* ]]; then
    case "$key" in
${options.join('\n')}
    esac
    return 0
  fi
  case "$key:$n" in
${positionals.join('\n')}
  esac
  return 0
}
complete -F ${fn} ${program.bin}
`;
}

/** zsh: text inside `[...]` of an _arguments spec, in single quotes. */
const zshDesc = (s: string): string =>
  s
    .replace(/\\/g, '\\\\')
    .replace(/[[\]]/g, (m) => `\\${m}`)
    .replace(/'/g, `'\\''`);

const zshAction = (c: Completion | undefined): string => {
  if (c === undefined) return ' ';
  if (c === 'dir') return '_files -/';
  if (c === 'file') return '_files';
  return `(${c.join(' ')})`;
};

const zshPositional = (p: PositionalSpec): string => {
  const lead = p.variadic === true ? '*:' : p.optional === true ? '::' : ':';
  return `'${lead}${zshDesc(p.name)}:${zshAction(p.complete)}'`;
};

function zshArguments(spec: CommandSpec, form: FormSpec, withSubs: readonly string[]): string {
  const specs = entries(spec, form).map(([n, o]) =>
    o.type === 'string'
      ? `'--${n}=[${zshDesc(o.description)}]:${zshDesc(o.value)}:${zshAction(o.complete)}'`
      : `'--${n}[${zshDesc(o.description)}]'`,
  );
  specs.push(`'(- *)'{-h,--help}'[show this help]'`);
  const pos = [...form.positionals];
  if (withSubs.length > 0) {
    const own = pos.shift();
    specs.push(`':${own === undefined ? 'subcommand' : `subcommand or ${zshDesc(own.name)}`}:(${withSubs.join(' ')})'`);
  }
  specs.push(...pos.map(zshPositional));
  return `_arguments -s : \\\n        ${specs.join(' \\\n        ')}`;
}

function zshScript(program: ProgramSpec): string {
  const fn = fnName(program.bin);
  const described = program.commands.map((c) => `    '${c.name}:${zshDesc(c.summary)}'`).join('\n');
  const cases: string[] = [];
  const subCases: string[] = [];
  for (const spec of program.commands) {
    const subs = (spec.subcommands ?? []).map((s) => s.name);
    if (subs.length > 0) subCases.push(`    ${sq(spec.name)}) [[ \${words[2]} == (${subs.join('|')}) ]] && sub=\${words[2]} ;;`);
    for (const form of formsOf(spec))
      cases.push(`    ${sq(formKey(spec, form))}) ${zshArguments(spec, form, form === spec ? subs : [])} ;;`);
    if (spec.abstract === true)
      cases.push(`    ${sq(spec.name)}) _arguments -s : '(- *)'{-h,--help}'[show this help]' ':subcommand:(${subs.join(' ')})' ;;`);
  }
  return `#compdef ${program.bin}
# zsh completion for ${program.bin}, generated from its command definitions (the same as --help).
# Load it (after compinit): source <(${program.bin} completion zsh)
# or keep it as _${program.bin} in a folder of $fpath: ${program.bin} completion zsh > ~/.zfunc/_${program.bin}
${fn}() {
  local -a commands
  commands=(
${described}
  )
  if (( CURRENT == 2 )); then
    _describe -t commands '${program.bin} command' commands
    return
  fi
  local cmd=\${words[2]} sub=''
  shift words; (( CURRENT-- ))
  if (( CURRENT > 2 )); then
    case $cmd in
${subCases.join('\n')}
    esac
  fi
  if [[ -n $sub ]]; then shift words; (( CURRENT-- )); fi
  case "$cmd\${sub:+ $sub}" in
${cases.join('\n')}
  esac
}
if [[ \${funcstack[1]} == ${fn} ]]; then ${fn} "$@"; else compdef ${fn} ${program.bin}; fi
`;
}

/** The completion script of a program for a shell. */
export function completionScript(program: ProgramSpec, shell: Shell): string {
  return shell === 'bash' ? bashScript(program) : zshScript(program);
}
