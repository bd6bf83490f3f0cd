#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Man pages of the cisp command from its help text, the one source of both.

    tools/man.py CISP OUTDIR COMMAND...

writes OUTDIR/cisp.1 from `CISP --help` and OUTDIR/cisp-COMMAND.1 from
`CISP COMMAND --help` for each COMMAND, and fails when `CISP --help` lists
other commands than those given (the build names the pages it installs).
A help text is a usage block, paragraphs, and an "options:" list of lines
"  -x, --long VALUE   what it does" with indented continuation lines.
"""
import os
import re
import subprocess
import sys

OPTION = re.compile(r'^  (-\S.*?)(?:\s{2,}(\S.*))?$')


def roff(text):
    """Escape running text for roff: backslashes, and dots or quotes that would start a request."""
    text = text.replace('\\', '\\e').replace('-', '\\-')
    return re.sub(r"^([.'])", r'\\&\1', text)


def page(name, summary, version, help_text, extra=''):
    lines = help_text.rstrip('\n').split('\n')
    usage = []
    while lines and lines[0].strip():
        usage.append(re.sub(r'^usage: ', '', lines.pop(0)).strip())
    out = ['.TH %s 1 "" "cisp %s" "cisp manual"' % (name.upper(), version),
           '.SH NAME', roff('%s - %s' % (name, summary)),
           '.SH SYNOPSIS', '.nf'] + [roff(u) for u in usage] + ['.fi']
    section = 'DESCRIPTION'
    out.append('.SH DESCRIPTION')
    paragraph = []
    for line in lines + ['']:
        if line.strip().lower() in ('options:', 'commands:'):
            section = line.strip()[:-1].upper()
            if paragraph:
                out += ['.PP', roff(' '.join(paragraph))]
                paragraph = []
            out.append('.SH ' + section)
            continue
        m = OPTION.match(line)
        if section != 'DESCRIPTION' and m:
            out += ['.TP', '.B ' + roff(m.group(1).strip())]
            if m.group(2):
                out.append(roff(m.group(2)))
        elif section != 'DESCRIPTION' and line.startswith('    ') and line.strip():
            out.append(roff(line.strip()))
        elif not line.strip():
            if paragraph:
                out += ['.PP', roff(' '.join(paragraph))]
                paragraph = []
        else:
            if section != 'DESCRIPTION' and not paragraph:
                section = 'DESCRIPTION'
                out.append('.PP')
            paragraph.append(line.strip())
    out += ['.SH SEE ALSO', roff(extra or 'cisp(1); docs/cli.md in the cisp sources.')]
    return '\n'.join(out) + '\n'


def main():
    cisp, outdir, commands = sys.argv[1], sys.argv[2], sys.argv[3:]
    run = lambda *args: subprocess.run([cisp, *args], check=True, capture_output=True, text=True).stdout
    top = run('--help')
    version = run('--version').split()[-1]
    listed = dict(re.findall(r'^  (\S+)\s+(.*)$', top.split('commands:')[1].split('\n\n')[0], re.M))
    if sorted(listed) != sorted(commands):
        sys.exit('man.py: cisp --help lists %s, the build names %s' % (sorted(listed), sorted(commands)))
    os.makedirs(outdir, exist_ok=True)
    see_also = ', '.join('cisp-%s(1)' % c for c in sorted(commands))
    with open(os.path.join(outdir, 'cisp.1'), 'w') as f:
        f.write(page('cisp', 'the canonical ISP camera stack from the command line', version, top, see_also))
    for c in commands:
        with open(os.path.join(outdir, 'cisp-%s.1' % c), 'w') as f:
            f.write(page('cisp-' + c, listed[c], version, run(c, '--help')))


if __name__ == '__main__':
    main()
