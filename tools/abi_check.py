#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Check libcisp.so's ABI against the committed baseline (docs/api.md).

    tools/abi_check.py build/src/libcisp.so            # compare; exit 1 on a break
    tools/abi_check.py build/src/libcisp.so --update   # rewrite the baseline

The library's DWARF, read by libabigail's abidw, is reduced to a text file a
reviewer can read: the soname, every exported function with its parameter
and return types, every exported variable, and the layout of every struct,
union and enum defined in include/cisp/ (size, each member's offset and type,
each enumerator's value). Types the headers only declare (opaque handles)
are left out: their insides are the library's business.

A break is a change an application built against the baseline can notice:
an exported symbol gone or its signature changed, a public struct's size or
a member's offset or type changed, a member or enumerator gone or its value
changed. A break fails unless it is announced: the soname's number raised
(cisp_soversion in meson.build, the package name in debian/control) and the
baseline rewritten in the same change. Additions (new functions, types,
enumerators, members in padding) and renamed members are listed and pass.
"""
import argparse
import os
import re
import subprocess
import sys
import xml.etree.ElementTree as ET

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
BASELINE = os.path.join(ROOT, 'tools', 'abi-baseline.txt')
HEADERS = os.path.join(ROOT, 'include', 'cisp')


class Corpus:
    """The ABI of one library as text lines, from abidw's XML."""

    def __init__(self, root):
        self.types = {}
        for el in root.iter():
            if el.get('id') and el.tag != 'abi-instr':
                self.types.setdefault(el.get('id'), el)

    def name(self, tid):
        """A type as C spells it, by name (structs are named, not expanded)."""
        el = self.types.get(tid)
        if el is None:
            return '?'
        tag = el.tag
        if tag == 'type-decl':
            return el.get('name')
        if tag == 'typedef-decl':
            return el.get('name')
        if tag == 'pointer-type-def':
            return self.name(el.get('type-id')) + '*'
        if tag == 'qualified-type-def':
            quals = [q for q in ('const', 'volatile', 'restrict') if el.get(q) == 'yes']
            return ' '.join(quals + [self.name(el.get('type-id'))])
        if tag == 'array-type-def':
            dims = ''.join('[%s]' % (s.get('length') if s.get('length') != 'infinite' else '')
                           for s in el.findall('subrange'))
            return self.name(el.get('type-id')) + dims
        if tag in ('class-decl', 'union-decl'):
            kind = 'union' if tag == 'union-decl' else 'struct'
            if el.get('is-anonymous') == 'yes':
                return kind + ' {' + '; '.join(self.members(el)) + '}'
            return kind + ' ' + el.get('name')
        if tag == 'enum-decl':
            return 'enum ' + (el.get('name') if el.get('is-anonymous') != 'yes' else '{anonymous}')
        if tag == 'function-type':
            params = [self.name(p.get('type-id')) for p in el.findall('parameter')]
            return self.name(el.find('return').get('type-id')) + ' (' + ', '.join(params) + ')'
        return tag

    def members(self, el):
        out = []
        for dm in el.findall('data-member'):
            var = dm.find('var-decl')
            out.append('%s @%s %s' % (var.get('name'), dm.get('layout-offset-in-bits', '0'),
                                      self.name(var.get('type-id'))))
        return out

    def lines(self, root):
        yield 'soname ' + root.get('soname', '?')
        exported = {s.get('name') for s in root.iter('elf-symbol')}
        seen = set()
        for fn in root.iter('function-decl'):
            name = fn.get('name')
            if name not in exported or name in seen:
                continue
            seen.add(name)
            params = [self.name(p.get('type-id')) for p in fn.findall('parameter')]
            if any(p.get('is-variadic') == 'yes' for p in fn.findall('parameter')):
                params = [p for p, e in zip(params, fn.findall('parameter')) if e.get('is-variadic') != 'yes']
                params.append('...')
            yield 'function %s(%s) -> %s' % (name, ', '.join(params), self.name(fn.find('return').get('type-id')))
        for var in root.iter('var-decl'):
            name = var.get('name')
            if name in exported and name not in seen and var.get('mangled-name', name) == name:
                seen.add(name)
                yield 'variable %s %s' % (name, self.name(var.get('type-id')))
        for name in sorted(exported - seen):
            yield 'symbol %s' % name
        public = set()
        for el in self.types.values():
            if el.tag not in ('class-decl', 'union-decl', 'enum-decl') or el.get('is-anonymous') == 'yes':
                continue
            if el.get('is-declaration-only') == 'yes' or not el.get('filepath', '').endswith(
                    tuple('/include/cisp/' + h for h in os.listdir(HEADERS))):
                continue
            key = self.name(el.get('id'))
            if key in public:
                continue
            public.add(key)
            if el.tag == 'enum-decl':
                for e in el.findall('enumerator'):
                    yield '%s: %s = %s' % (key, e.get('name'), e.get('value'))
            else:
                yield '%s: size %s' % (key, el.get('size-in-bits'))
                for m in self.members(el):
                    yield '%s: member %s' % (key, m)


def declared():
    """The functions and variables include/cisp/ declares: every one must be exported."""
    names = set()
    for h in os.listdir(HEADERS):
        with open(os.path.join(HEADERS, h)) as f:
            for line in f:
                # Declarations start a line; comments, members, macros and typedefs do not count.
                if re.match(r'(typedef|static|#|\s|/|\*|})', line):
                    continue
                m = re.search(r'\b(cisp_\w+)\s*[\(\[]', line)
                if m:
                    names.add(m.group(1))
    return names


def dump(library):
    xml = subprocess.run(['abidw', '--headers-dir', HEADERS, '--drop-private-types', library],
                         check=True, capture_output=True, text=True).stdout
    root = ET.fromstring(xml)
    return sorted(set(Corpus(root).lines(root)))


def compare(old, new):
    """(breaks, additions) between two baselines."""
    def index(lines):
        d = {'soname': None, 'symbols': {}, 'sizes': {}, 'members': {}, 'enums': {}}
        for line in lines:
            if line.startswith('soname '):
                d['soname'] = line.split()[1]
            elif re.match(r'(function|variable|symbol) ', line):
                name = re.match(r'\w+ ([A-Za-z_0-9]+)', line).group(1)
                d['symbols'][name] = line
            elif ': size ' in line:
                t, size = line.split(': size ')
                d['sizes'][t] = size
            elif ': member ' in line:
                t, m = line.split(': member ')
                name, offset, mtype = re.match(r'(\S+) @(\d+) (.*)', m).groups()
                d['members'].setdefault(t, {})[name] = (offset, mtype)
            else:
                t, e = line.split(': ', 1)
                ename, value = e.split(' = ')
                d['enums'].setdefault(t, {})[ename] = value
        return d
    o, n = index(old), index(new)
    breaks, additions = [], []
    for name, line in o['symbols'].items():
        if name not in n['symbols']:
            breaks.append('removed: ' + line)
        elif n['symbols'][name] != line:
            breaks.append('changed: %s\n      now: %s' % (line, n['symbols'][name]))
    additions += ['new: ' + line for name, line in n['symbols'].items() if name not in o['symbols']]
    for t, size in o['sizes'].items():
        if t not in n['sizes']:
            breaks.append('type removed: ' + t)
        elif n['sizes'][t] != size:
            breaks.append('%s: size %s bits, now %s' % (t, size, n['sizes'][t]))
    additions += ['new type: ' + t for t in n['sizes'] if t not in o['sizes']]
    for t, members in o['members'].items():
        now = n['members'].get(t, {})
        slots = {v: k for k, v in now.items()}
        for name, slot in members.items():
            if now.get(name) == slot:
                continue
            if slot in slots:
                additions.append('%s: member %s renamed %s' % (t, name, slots[slot]))
            else:
                breaks.append('%s: member %s (offset %s bits, %s) %s' % (
                    t, name, slot[0], slot[1], 'now %s' % (now[name],) if name in now else 'removed'))
        old_slots = set(members.values())
        additions += ['%s: new member %s' % (t, k) for k, v in now.items() if k not in members and v not in old_slots]
    for t, values in o['enums'].items():
        now = n['enums'].get(t, {})
        for e, v in values.items():
            if now.get(e) != v:
                breaks.append('%s: %s = %s, now %s' % (t, e, v, now.get(e, 'removed')))
        additions += ['%s: new %s = %s' % (t, e, v) for e, v in now.items() if e not in values]
    for t in n['enums']:
        if t not in o['enums']:
            additions.append('new type: ' + t)
    return o['soname'], n['soname'], breaks, additions


def main():
    ap = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    ap.add_argument('library', help='the built libcisp.so (with debug information)')
    ap.add_argument('--baseline', default=BASELINE)
    ap.add_argument('--update', action='store_true', help='rewrite the baseline from the library')
    args = ap.parse_args()
    current = dump(args.library)
    exported = {re.match(r'\w+ ([A-Za-z_0-9]+)', l).group(1) for l in current
                if re.match(r'(function|variable|symbol) ', l)}
    hidden = sorted(declared() - exported)
    if hidden:
        print('abi: declared in include/cisp/ but not exported (CISP_API missing?): ' + ', '.join(hidden))
        return 1
    if args.update:
        with open(args.baseline, 'w') as f:
            f.write('# The ABI of libcisp (tools/abi_check.py --update writes it; docs/api.md).\n')
            f.write('\n'.join(current) + '\n')
        print('abi: wrote %s (%d lines)' % (os.path.relpath(args.baseline), len(current)))
        return 0
    with open(args.baseline) as f:
        baseline = [l.rstrip('\n') for l in f if l.strip() and not l.startswith('#')]
    old_so, new_so, breaks, additions = compare(baseline, current)
    for a in additions:
        print('abi: addition: ' + a)
    if old_so != new_so:
        print('abi: the soname is %s, the baseline is of %s: an announced break; rewrite the baseline '
              '(tools/abi_check.py --update)' % (new_so, old_so))
        return 1
    for b in breaks:
        print('abi: BREAK: ' + b)
    if breaks:
        print('abi: %d breaks of %s that the soname does not announce: raise cisp_soversion in meson.build and '
              'the package name in debian/control, then tools/abi_check.py --update (docs/api.md)'
              % (len(breaks), new_so))
        return 1
    print('abi: %s matches the baseline (%d exported symbols%s)' % (
        new_so, sum(1 for l in current if re.match(r'(function|variable|symbol) ', l)),
        ', %d additions' % len(additions) if additions else ''))
    return 0


if __name__ == '__main__':
    sys.exit(main())
