# `cmake --install`: the command, the libraries, the headers, pkg-config and
# CMake package files, the scenarios and docs, a man page, bash completion
# (docs/packaging.md). Everything under the prefix is relocatable.
include(CMakePackageConfigHelpers)

install(TARGETS bnet_cli RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})
set(BNET_INSTALL_LIBS bnet)
set_target_properties(bnet PROPERTIES EXPORT_NAME bnet_static)
if(BNET_SHARED)
  list(APPEND BNET_INSTALL_LIBS bnet_shared)
  set_target_properties(bnet_shared PROPERTIES EXPORT_NAME bnet)
endif()
install(TARGETS ${BNET_INSTALL_LIBS} EXPORT bnetTargets
        ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR}
        LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR})
file(GLOB BNET_PUBLIC_HEADERS ${PROJECT_SOURCE_DIR}/include/bnet/*.h)
install(FILES ${BNET_PUBLIC_HEADERS} ${PROJECT_BINARY_DIR}/include/bnet/version.h
        DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}/bnet)

# find_package(bnet): bnet::bnet (shared) and bnet::bnet_static
set(BNET_CMAKEDIR ${CMAKE_INSTALL_LIBDIR}/cmake/bnet)
install(EXPORT bnetTargets NAMESPACE bnet:: DESTINATION ${BNET_CMAKEDIR})
configure_package_config_file(${PROJECT_SOURCE_DIR}/packaging/bnetConfig.cmake.in
                              ${PROJECT_BINARY_DIR}/bnetConfig.cmake INSTALL_DESTINATION ${BNET_CMAKEDIR})
# 0.x: a minor release may change the API, so only the same minor matches
write_basic_package_version_file(${PROJECT_BINARY_DIR}/bnetConfigVersion.cmake
                                 COMPATIBILITY SameMinorVersion)
install(FILES ${PROJECT_BINARY_DIR}/bnetConfig.cmake ${PROJECT_BINARY_DIR}/bnetConfigVersion.cmake
        DESTINATION ${BNET_CMAKEDIR})

# pkg-config, with its prefix relative to where the .pc file lands
file(RELATIVE_PATH BNET_PC_UP ${CMAKE_INSTALL_FULL_LIBDIR}/pkgconfig ${CMAKE_INSTALL_PREFIX})
string(REGEX REPLACE "/$" "" BNET_PC_UP "${BNET_PC_UP}")
configure_file(${PROJECT_SOURCE_DIR}/packaging/bnet.pc.in ${PROJECT_BINARY_DIR}/bnet.pc @ONLY)
install(FILES ${PROJECT_BINARY_DIR}/bnet.pc DESTINATION ${CMAKE_INSTALL_LIBDIR}/pkgconfig)

install(DIRECTORY ${PROJECT_SOURCE_DIR}/scenarios/ DESTINATION ${CMAKE_INSTALL_DATADIR}/bnet/scenarios)
# the manual where Debian policy 12.3 puts a package's documentation:
# share/doc/bnet (CMAKE_INSTALL_DOCDIR), with the README and change log
install(DIRECTORY ${PROJECT_SOURCE_DIR}/docs/ DESTINATION ${CMAKE_INSTALL_DOCDIR})
install(FILES ${PROJECT_SOURCE_DIR}/README.md ${PROJECT_SOURCE_DIR}/CHANGELOG.md
              ${PROJECT_SOURCE_DIR}/LICENSE DESTINATION ${CMAKE_INSTALL_DOCDIR})
install(FILES ${PROJECT_SOURCE_DIR}/packaging/bnet.bash
        DESTINATION ${CMAKE_INSTALL_DATADIR}/bash-completion/completions RENAME bnet)

# The man page, from the command's own help texts (help2man)
find_program(HELP2MAN help2man)
if(HELP2MAN)
  add_custom_command(OUTPUT ${PROJECT_BINARY_DIR}/bnet.1
                     COMMAND bash ${PROJECT_SOURCE_DIR}/packaging/gen-man.sh $<TARGET_FILE:bnet_cli>
                             ${PROJECT_VERSION} ${CMAKE_INSTALL_FULL_DATADIR}
                             ${PROJECT_BINARY_DIR}/bnet.1
                     DEPENDS bnet_cli ${PROJECT_SOURCE_DIR}/packaging/gen-man.sh
                     COMMENT "Generating the man page bnet.1")
  add_custom_target(bnet_man ALL DEPENDS ${PROJECT_BINARY_DIR}/bnet.1)
  install(FILES ${PROJECT_BINARY_DIR}/bnet.1 DESTINATION ${CMAKE_INSTALL_MANDIR}/man1)
else()
  message(WARNING "help2man not found: no man page is built or installed (apt install help2man)")
endif()
