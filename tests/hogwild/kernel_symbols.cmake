# The builds of the kernels share no code (hogwild/lanes.hpp): every weak
# or unique function an object of build NAMESPACE defines (an inline
# function, a template instantiation) must carry NAMESPACE in its name, or
# the final link could merge it with another build's copy and run code
# compiled for wider registers on a CPU without them. Data (constants, the
# C++ personality routine's pointer) is the same in every build and allowed.
#
# In: READELF, OBJECTS (the build's object files, separated by |), NAMESPACE.
# Run by CTest as hogwild/kernel_symbols/NAMESPACE (tests/hogwild/CMakeLists.txt).
if(NOT READELF)
  message(FATAL_ERROR "readelf (GNU binutils) is needed to read the kernel objects")
endif()
string(REPLACE "|" ";" objects "${OBJECTS}")
set(shared "")
set(functions 0)
foreach(object IN LISTS objects)
  execute_process(COMMAND ${READELF} -sW ${object} OUTPUT_VARIABLE table COMMAND_ERROR_IS_FATAL ANY)
  string(REGEX MATCHALL "[^\n]+" lines "${table}")
  foreach(line IN LISTS lines)
    # Num: Value Size Type Bind Vis Ndx Name
    if(line MATCHES "^ *[0-9]+: +[0-9a-f]+ +[0-9]+ +FUNC +([A-Z_]+) +[A-Z]+ +([A-Z0-9]+) +(.+)$")
      set(bind ${CMAKE_MATCH_1})
      set(section ${CMAKE_MATCH_2})
      set(name ${CMAKE_MATCH_3})
      if(NOT section STREQUAL "UND")
        math(EXPR functions "${functions} + 1")
        if((bind STREQUAL "WEAK" OR bind STREQUAL "UNIQUE") AND NOT name MATCHES "${NAMESPACE}")
          get_filename_component(file ${object} NAME)
          string(APPEND shared "  ${file}: ${name}\n")
        endif()
      endif()
    endif()
  endforeach()
endforeach()
if(functions EQUAL 0)
  message(FATAL_ERROR "no function defined in the ${NAMESPACE} objects: ${OBJECTS}")
endif()
if(shared)
  message(FATAL_ERROR "the ${NAMESPACE} kernels define weak functions outside their namespace, which the "
                      "link can merge with another build's (c++filt reads the names):\n${shared}")
endif()
message(STATUS "${NAMESPACE}: ${functions} functions, none shared with another build")
