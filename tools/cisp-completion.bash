# SPDX-License-Identifier: MIT
# Bash completion of the cisp command. The commands and options come from
# `cisp --help` and `cisp COMMAND --help` when completing, so they are
# always those of the installed cisp.
_cisp()
{
	local cur=${COMP_WORDS[COMP_CWORD]} prev=${COMP_WORDS[COMP_CWORD-1]} words
	if [ "$COMP_CWORD" -eq 1 ] || { [ "$COMP_CWORD" -eq 2 ] && [ "$prev" = help ]; }; then
		words=$(cisp --help 2>/dev/null | sed -n '/^commands:/,/^$/s/^  \([a-z]*\) .*/\1/p')
		[ "$COMP_CWORD" -eq 1 ] && words="$words help"
		COMPREPLY=($(compgen -W "$words" -- "$cur"))
		return
	fi
	if [[ $cur == -* ]]; then
		words=$(cisp "${COMP_WORDS[1]}" --help 2>/dev/null | grep -oE '^  (-[a-z], )?--[a-z0-9-]+' | grep -oE -- '--[a-z0-9-]+')
		COMPREPLY=($(compgen -W "$words" -- "$cur"))
		return
	fi
	COMPREPLY=($(compgen -f -- "$cur"))
}
complete -o filenames -F _cisp cisp
