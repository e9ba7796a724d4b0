# Makes one build of the kernels self-contained (run by hogwild/CMakeLists.txt
# with cmake -P). Inline functions and template instantiations (Eigen's,
# the standard library's) are weak symbols in COMDAT groups, which the
# final link merges by name: it could hand the baseline code a copy built
# for AVX-512. So this links the build's objects into one (ld -r) and gives
# every weak or unique symbol it defines, and every COMDAT group it holds,
# the suffix .SUFFIX: the build then shares nothing but its strong symbols,
# which live in its own namespace.
#
# In: LINKER, NM, READELF, OBJCOPY (the tools), OBJECTS (the object files,
# separated by |), SUFFIX, OUTPUT (the object file to write).
string(REPLACE "|" ";" objects "${OBJECTS}")
set(merged ${OUTPUT}.merged.o)
set(renames ${OUTPUT}.renames)
execute_process(COMMAND ${LINKER} -r -o ${merged} ${objects} COMMAND_ERROR_IS_FATAL ANY)
execute_process(COMMAND ${NM} --defined-only -P ${merged} OUTPUT_VARIABLE symbols COMMAND_ERROR_IS_FATAL ANY)
execute_process(COMMAND ${READELF} -gW ${merged} OUTPUT_VARIABLE groups COMMAND_ERROR_IS_FATAL ANY)

set(names "")
string(REGEX MATCHALL "[^\n]+" lines "${symbols}")
foreach(line IN LISTS lines)
  if(line MATCHES "^([^ ]+) [WVu] ")
    list(APPEND names "${CMAKE_MATCH_1}")
  endif()
endforeach()
string(REGEX MATCHALL "[^\n]+" lines "${groups}")
foreach(line IN LISTS lines)
  if(line MATCHES "^COMDAT group section [^[]*\\[ *[0-9]+\\] [^[]*\\[([^]]+)\\]")
    list(APPEND names "${CMAKE_MATCH_1}")
  endif()
endforeach()
list(REMOVE_DUPLICATES names)
set(text "")
foreach(name IN LISTS names)
  string(APPEND text "${name} ${name}.${SUFFIX}\n")
endforeach()
file(WRITE ${renames} "${text}")
execute_process(COMMAND ${OBJCOPY} --redefine-syms=${renames} ${merged} ${OUTPUT} COMMAND_ERROR_IS_FATAL ANY)
file(REMOVE ${merged})
