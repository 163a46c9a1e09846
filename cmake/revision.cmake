# Writes OUT with BNET_GIT_REVISION: the checkout's commit (12 hex digits,
# "-dirty" when the tree has changes), or "" outside a git checkout. Run at
# every build; OUT is rewritten only when the revision changed.
set(rev "")
find_package(Git QUIET)
if(GIT_FOUND AND EXISTS "${SRC}/.git")
  execute_process(COMMAND "${GIT_EXECUTABLE}" -C "${SRC}" rev-parse --short=12 HEAD
                  OUTPUT_VARIABLE rev OUTPUT_STRIP_TRAILING_WHITESPACE ERROR_QUIET RESULT_VARIABLE rc)
  if(NOT rc EQUAL 0)
    set(rev "")
  else()
    execute_process(COMMAND "${GIT_EXECUTABLE}" -C "${SRC}" diff-index --quiet HEAD --
                    RESULT_VARIABLE dirty ERROR_QUIET)
    if(NOT dirty EQUAL 0)
      string(APPEND rev "-dirty")
    endif()
  endif()
endif()
set(text "#define BNET_GIT_REVISION \"${rev}\"\n")
if(EXISTS "${OUT}")
  file(READ "${OUT}" old)
endif()
if(NOT "${old}" STREQUAL "${text}")
  file(WRITE "${OUT}" "${text}")
endif()
