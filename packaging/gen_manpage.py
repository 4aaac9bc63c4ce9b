#!/usr/bin/env python3
"""Writes gpuwatch.1 (roff) and bash/zsh completions from the CLI's own --help, so that the
packaged man page and completions cannot drift from the binary (issue 15, the .deb).

  gen_manpage.py GPUWATCH_BIN OUT_DIR VERSION
writes OUT_DIR/gpuwatch.1, OUT_DIR/gpuwatch.bash, OUT_DIR/_gpuwatch.
"""
import os
import re
import subprocess
import sys


def help_of(binary, args):
    env = dict(os.environ, COLUMNS="100", NO_COLOR="1")
    r = subprocess.run([binary] + args + ["--help"], capture_output=True, text=True, env=env, timeout=30)
    if r.returncode != 0:
        raise SystemExit(f"{binary} {' '.join(args)} --help failed: {r.stderr}")
    return r.stdout


def subcommands(top_help):
    """Names in the SUBCOMMANDS section of CLI11's help."""
    names, inside = [], False
    for line in top_help.splitlines():
        if line.strip().upper().startswith("SUBCOMMANDS"):
            inside = True
            continue
        if inside:
            m = re.match(r"^\s{2}(\S+)\s", line)
            if m:
                names.append(m.group(1))
            elif line.strip() and not line.startswith(" "):
                inside = False
    return names


def flags(text):
    return sorted(set(re.findall(r"(?<![\w-])(--[a-z][a-z0-9-]*)", text)))


def roff_escape(text):
    return text.replace("\\", "\\\\").replace("-", "\\-").replace("'", "\\'")


def manpage(version, top, per_command):
    out = [f'.TH GPUWATCH 1 "" "gpuwatch {version}" "User Commands"',
           ".SH NAME", "gpuwatch \\- GPU monitoring for NVIDIA GPUs",
           ".SH SYNOPSIS", ".B gpuwatch", "[\\fIOPTIONS\\fR] [\\fICOMMAND\\fR] [\\fICOMMAND OPTIONS\\fR]",
           ".SH DESCRIPTION", ".nf", roff_escape(top), ".fi"]
    for name, text in per_command.items():
        out += [f".SH COMMAND: {name.upper()}", ".nf", roff_escape(text), ".fi"]
    out += [".SH FILES", "/usr/lib/gpuwatch/sim-driver/libnvidia-ml.so.1 \\- the simulated NVIDIA driver",
            ".br", "/lib/systemd/system/gpuwatch.service \\- gpuwatch serve as a system service",
            ".SH SEE ALSO", "nvidia-smi(1), /usr/share/doc/gpuwatch/"]
    return "\n".join(out) + "\n"


def bash_completion(commands, per_command_flags, global_flags):
    cases = "\n".join(f'    {name}) opts="{" ".join(f)}" ;;' for name, f in per_command_flags.items())
    return f"""# bash completion for gpuwatch (generated from its --help)
_gpuwatch() {{
  local cur=${{COMP_WORDS[COMP_CWORD]}} cmd="" w opts
  for w in "${{COMP_WORDS[@]:1:COMP_CWORD-1}}"; do
    case $w in -*) ;; *) cmd=$w; break ;; esac
  done
  case $cmd in
{cases}
    *) opts="{' '.join(commands)} {' '.join(global_flags)}" ;;
  esac
  COMPREPLY=($(compgen -W "$opts" -- "$cur"))
}}
complete -F _gpuwatch gpuwatch
"""


def zsh_completion(commands, per_command_flags, global_flags):
    cases = "\n".join(f"    {name}) compadd -- {' '.join(f)} ;;" for name, f in per_command_flags.items())
    return f"""#compdef gpuwatch
# zsh completion for gpuwatch (generated from its --help)
local cmd=${{words[2]}}
if (( CURRENT == 2 )); then
  compadd -- {' '.join(commands)} {' '.join(global_flags)}
  return
fi
case $cmd in
{cases}
esac
"""


def main():
    binary, out_dir, version = sys.argv[1:4]
    os.makedirs(out_dir, exist_ok=True)
    top = help_of(binary, [])
    commands = subcommands(top)
    if not commands:
        raise SystemExit("no subcommands found in gpuwatch --help")
    per_command = {name: help_of(binary, [name]) for name in commands}
    per_flags = {name: flags(text) for name, text in per_command.items()}
    global_flags = flags(top)
    with open(os.path.join(out_dir, "gpuwatch.1"), "w") as f:
        f.write(manpage(version, top, per_command))
    with open(os.path.join(out_dir, "gpuwatch.bash"), "w") as f:
        f.write(bash_completion(commands, per_flags, global_flags))
    with open(os.path.join(out_dir, "_gpuwatch"), "w") as f:
        f.write(zsh_completion(commands, per_flags, global_flags))


if __name__ == "__main__":
    main()
