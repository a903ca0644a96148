# Install rules, pkg-config files and the CMake package config of libsnapcommit.
# Included from the top-level CMakeLists.txt after the targets are defined.
#
#   cmake --install build --prefix /usr/local    installs:
#     lib/libsnapcommit.so*, lib/libsnapcommit.a
#     include/snapcommit/*.h
#     bin/snapcommit                             (the CLI)
#     lib/pkgconfig/snapcommit.pc                (shared; --static lists what the archive needs)
#     lib/pkgconfig/snapcommit-static.pc         (links lib/libsnapcommit.a even next to the .so)
#     lib/cmake/snapcommit/                      (find_package(snapcommit CONFIG):
#                                                 snapcommit::snapcommit, snapcommit::snapcommit_static)
# (lib is CMAKE_INSTALL_LIBDIR: lib/x86_64-linux-gnu under /usr on Debian.)
include(CMakePackageConfigHelpers)

set_target_properties(snapcommit_static PROPERTIES EXPORT_NAME snapcommit_static)
install(TARGETS snapcommit snapcommit_static EXPORT snapcommitTargets
        LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR}
        ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR}
        INCLUDES DESTINATION ${CMAKE_INSTALL_INCLUDEDIR})
install(TARGETS snapcommit_cli RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})
install(DIRECTORY ${CMAKE_SOURCE_DIR}/native/include/snapcommit
        DESTINATION ${CMAKE_INSTALL_INCLUDEDIR} FILES_MATCHING PATTERN "*.h")

# CMake package config. The archive's link interface names the dependency targets
# (PkgConfig::JANSSON, ...), which snapcommitConfig.cmake re-creates the same way.
set(SC_CMAKE_DIR ${CMAKE_INSTALL_LIBDIR}/cmake/snapcommit)
install(EXPORT snapcommitTargets NAMESPACE snapcommit:: DESTINATION ${SC_CMAKE_DIR})
configure_package_config_file(${CMAKE_SOURCE_DIR}/cmake/snapcommitConfig.cmake.in
                              ${CMAKE_BINARY_DIR}/snapcommitConfig.cmake INSTALL_DESTINATION ${SC_CMAKE_DIR})
# 0.x: minor versions may break the API.
write_basic_package_version_file(${CMAKE_BINARY_DIR}/snapcommitConfigVersion.cmake
                                 VERSION ${PROJECT_VERSION} COMPATIBILITY SameMinorVersion)
install(FILES ${CMAKE_BINARY_DIR}/snapcommitConfig.cmake ${CMAKE_BINARY_DIR}/snapcommitConfigVersion.cmake
        DESTINATION ${SC_CMAKE_DIR})

# pkg-config: paths relative to the .pc file (${pcfiledir}), so `cmake --install --prefix X`
# works without reconfiguring and the prefix can be moved.
# An absolute CMAKE_INSTALL_LIBDIR or _INCLUDEDIR (-DCMAKE_INSTALL_LIBDIR=/usr/lib64) does not
# move with --prefix: the .pc then names the configured absolute directories instead.
if(IS_ABSOLUTE "${CMAKE_INSTALL_LIBDIR}" OR IS_ABSOLUTE "${CMAKE_INSTALL_INCLUDEDIR}")
  set(SC_PC_PREFIX_VALUE "${CMAKE_INSTALL_PREFIX}")
  set(SC_PC_LIBDIR "${CMAKE_INSTALL_FULL_LIBDIR}")
  set(SC_PC_INCLUDEDIR "${CMAKE_INSTALL_FULL_INCLUDEDIR}")
else()
  file(RELATIVE_PATH SC_PC_PREFIX "/${CMAKE_INSTALL_LIBDIR}/pkgconfig" "/")
  string(REGEX REPLACE "/$" "" SC_PC_PREFIX "${SC_PC_PREFIX}")
  set(SC_PC_PREFIX_VALUE "\${pcfiledir}/${SC_PC_PREFIX}")
  set(SC_PC_LIBDIR "\${prefix}/${CMAKE_INSTALL_LIBDIR}")
  set(SC_PC_INCLUDEDIR "\${prefix}/${CMAKE_INSTALL_INCLUDEDIR}")
endif()
foreach(pc snapcommit snapcommit-static)
  configure_file(${CMAKE_SOURCE_DIR}/cmake/${pc}.pc.in ${CMAKE_BINARY_DIR}/${pc}.pc @ONLY)
  install(FILES ${CMAKE_BINARY_DIR}/${pc}.pc DESTINATION ${CMAKE_INSTALL_LIBDIR}/pkgconfig)
endforeach()
