# SPDX-License-Identifier: GPL-2.0
# bash completion for compsize(8): options, their values (--estimate items
# with their levels and ranges, --format, --sort, --find's keys), and
# paths.  Installed as
# compsize in bash-completion's completions directory, loaded on demand.
# tests/cli/060-completion checks it against compsize --help.

# The --estimate item being typed ($1: what follows the last comma) ->
# COMPREPLY, as whole items.  Levels as in est-setting.c: zstd -15..15,
# zlib 1..9, lzo none; ALG:LOW..HIGH a range.
_compsize_estimate_item()
{
	local it=$1 pfx= alg lvl lo min max i
	local -a c=()

	case $it in
	compress-force=*) pfx=compress-force= ;;
	compress=*) pfx=compress= ;;
	esac
	it=${it#"$pfx"}
	case $it in
	*:*)
		alg=${it%%:*}
		lvl=${it#*:}
		case $alg in
		zstd) min=-15 max=15 ;;
		zlib) min=1 max=9 ;;
		*) return ;;
		esac
		case $lvl in
		*..*)
			lo=${lvl%%..*}
			[[ $lo =~ ^-?[0-9]+$ ]] || return
			for ((i = lo + 1; i <= max; i++)); do
				c+=("$pfx$alg:$lo..$i")
			done
			;;
		*)
			for ((i = min; i <= max; i++)); do
				c+=("$pfx$alg:$i")
			done
			;;
		esac
		;;
	*)
		c=("${pfx}zstd" "${pfx}zstd:" "${pfx}zlib" "${pfx}zlib:"
		   "${pfx}lzo" "${pfx}all")
		[[ $pfx ]] || c+=(compress= compress-force=)
		;;
	esac
	COMPREPLY=($(compgen -W "${c[*]}" -- "$pfx$it"))
}

_compsize()
{
	local cur prev words cword split
	# '=' and ':' stay inside the word: --estimate=compress=zstd:3
	_init_completion -s -n := || return

	local opts='-b --bytes --raw --human-readable --iec --si --kbytes
		--mbytes --gbytes --tbytes -x --one-file-system -e --estimate
		-j --jobs --sample --precision --no-sample --seed --device-speed --plot --rewrite
		--assume --exclusive --levels --subvolumes --histogram --compare --format --depth --per-file --sort --top
		--waste --find -0 --null --progress
		--no-progress --walk -h --help --version'

	case $prev in
	--assume)
		# one --estimate item
		_compsize_estimate_item "$cur"
		[[ ${#COMPREPLY[@]} -eq 1 && ${COMPREPLY[0]} != *[=:] ]] ||
			compopt -o nospace
		;;
	-e | --estimate)
		local head=
		[[ $cur == *,* ]] && head=${cur%,*},
		_compsize_estimate_item "${cur##*,}"
		COMPREPLY=("${COMPREPLY[@]/#/$head}")
		# no space while the item is still open (compress=, zstd:)
		[[ ${#COMPREPLY[@]} -eq 1 && ${COMPREPLY[0]} != *[=:] ]] ||
			compopt -o nospace
		;;
	--format)
		COMPREPLY=($(compgen -W 'table json csv ncdu prometheus' -- "$cur"))
		;;
	--sort)
		COMPREPLY=($(compgen -W 'disk saved ratio name exclusive waste delta walk' -- "$cur"))
		;;
	--find)
		# the key of the predicate being typed (after the last comma);
		# the operator and value are the user's
		local head=
		[[ $cur == *,* ]] && head=${cur%,*},
		COMPREPLY=($(compgen -W 'type ratio size disk extents avg-extent
			shared exclusive waste gain' -- "${cur##*,}"))
		COMPREPLY=("${COMPREPLY[@]/#/$head}")
		compopt -o nospace
		;;
	--plot)
		_filedir svg
		;;
	--compare)
		_filedir json
		;;
	--sample)
		# a number or size, or auto
		COMPREPLY=($(compgen -W 'auto' -- "$cur"))
		;;
	-j | --jobs | --precision | --seed | --device-speed | --depth | --top)
		# a number or size: nothing to offer
		return
		;;
	*)
		if $split; then
			return	# --bytes=... takes no value
		fi
		local w
		for w in "${words[@]:1:cword-1}"; do
			[[ $w == -- ]] && { _filedir; return; }
		done
		if [[ $cur == -* ]]; then
			COMPREPLY=($(compgen -W "$opts" -- "$cur"))
			# options that take a value get '=' and no space
			local i
			for i in "${!COMPREPLY[@]}"; do
				case ${COMPREPLY[i]} in
				--estimate | --assume | --jobs | --sample | --precision | --seed | \
				--device-speed | --plot | --format | --depth | \
				--sort | --top | --find | --compare)
					COMPREPLY[i]+='='
					compopt -o nospace
					;;
				esac
			done
			[[ ${#COMPREPLY[@]} -eq 1 ]] || compopt +o nospace
		else
			_filedir
		fi
		return
		;;
	esac
	# readline replaces only what follows the last '=' or ':' of the word
	local done=${cur%"${cur##*[=:]}"}
	[[ $done ]] && COMPREPLY=("${COMPREPLY[@]#"$done"}")
	return 0
}
complete -F _compsize compsize
