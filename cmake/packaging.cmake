# Install rules and the .deb (issue 15): `cpack -G DEB` in the build directory, or the `deb` target.
#   /usr/bin/gpuwatch
#   /usr/lib/gpuwatch/sim-driver/libnvidia-ml.so.1   (the binary finds it at ../lib/gpuwatch/sim-driver)
#   /lib/systemd/system/gpuwatch.service
#   /usr/share/man/man1/gpuwatch.1.gz, bash and zsh completions: generated from the CLI's --help
#   /usr/share/doc/gpuwatch/ (deploy.md, attribution.md), /usr/share/gpuwatch/ (Prometheus rules,
#   Grafana dashboard, Slurm prolog/epilog)
include(GNUInstallDirs)
find_package(Python3 COMPONENTS Interpreter)

install(TARGETS gpuwatch RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR} COMPONENT runtime)
install(FILES $<TARGET_FILE:nvidia_ml_sim> DESTINATION lib/gpuwatch/sim-driver COMPONENT runtime)
install(FILES deploy/systemd/gpuwatch.service DESTINATION lib/systemd/system COMPONENT runtime)
install(FILES docs/deploy.md docs/attribution.md DESTINATION ${CMAKE_INSTALL_DOCDIR} COMPONENT runtime)
install(FILES deploy/prometheus/gpuwatch-rules.yaml deploy/grafana/gpuwatch-dashboard.json
        DESTINATION ${CMAKE_INSTALL_DATADIR}/gpuwatch COMPONENT runtime)
install(PROGRAMS deploy/slurm/gpuwatch-prolog.sh deploy/slurm/gpuwatch-epilog.sh
        DESTINATION ${CMAKE_INSTALL_DATADIR}/gpuwatch/slurm COMPONENT runtime)

if(Python3_Interpreter_FOUND)
  set(gen ${CMAKE_BINARY_DIR}/packaging)
  add_custom_command(
    OUTPUT ${gen}/gpuwatch.1.gz ${gen}/gpuwatch.bash ${gen}/_gpuwatch
    COMMAND ${Python3_EXECUTABLE} ${PROJECT_SOURCE_DIR}/packaging/gen_manpage.py $<TARGET_FILE:gpuwatch> ${gen}
            ${PROJECT_VERSION}
    COMMAND gzip -9nf ${gen}/gpuwatch.1
    DEPENDS gpuwatch ${PROJECT_SOURCE_DIR}/packaging/gen_manpage.py
    COMMENT "man page and completions from gpuwatch --help")
  # Not in ALL (it runs the binary): the `deb` target and the Containerfile build it.
  add_custom_target(gpuwatch_docs DEPENDS ${gen}/gpuwatch.1.gz ${gen}/gpuwatch.bash ${gen}/_gpuwatch)
  install(FILES ${gen}/gpuwatch.1.gz DESTINATION ${CMAKE_INSTALL_MANDIR}/man1 COMPONENT runtime OPTIONAL)
  install(FILES ${gen}/gpuwatch.bash DESTINATION ${CMAKE_INSTALL_DATADIR}/bash-completion/completions
          RENAME gpuwatch COMPONENT runtime OPTIONAL)
  install(FILES ${gen}/_gpuwatch DESTINATION ${CMAKE_INSTALL_DATADIR}/zsh/vendor-completions COMPONENT runtime
          OPTIONAL)
endif()

set(CPACK_GENERATOR DEB)
set(CPACK_PACKAGE_NAME gpuwatch)
set(CPACK_PACKAGE_VENDOR gpuwatch)
set(CPACK_PACKAGE_CONTACT "gpuwatch maintainers <gpuwatch@localhost>")
set(CPACK_PACKAGE_DESCRIPTION_SUMMARY "GPU monitoring for NVIDIA GPUs: status, history, Prometheus exporter")
set(CPACK_PACKAGING_INSTALL_PREFIX /usr)
set(CPACK_DEB_COMPONENT_INSTALL OFF)
set(CPACK_DEBIAN_FILE_NAME DEB-DEFAULT)
set(CPACK_DEBIAN_PACKAGE_SECTION utils)
set(CPACK_DEBIAN_PACKAGE_SHLIBDEPS ON)   # dpkg-shlibdeps: Depends from the binary's libraries
set(CPACK_DEBIAN_PACKAGE_RECOMMENDS "libnvidia-ml1 | nvidia-driver")
set(CPACK_STRIP_FILES ON)
include(CPack)
# cmake --build BUILD --target deb: the binary, the simulated driver, the man page, then the package.
add_custom_target(deb
  COMMAND ${CMAKE_CPACK_COMMAND} -G DEB --config ${CMAKE_BINARY_DIR}/CPackConfig.cmake
  WORKING_DIRECTORY ${CMAKE_BINARY_DIR}
  COMMENT "cpack -G DEB")
add_dependencies(deb gpuwatch nvidia_ml_sim)
if(TARGET gpuwatch_docs)
  add_dependencies(deb gpuwatch_docs)
endif()
