# The test docs_site: builds the documentation site (scripts/docs.sh: Doxygen + Sphinx, offline,
# into build/docs/html) and checks it (scripts/check_docs_site.py: every internal link and image
# of every page resolves, no resource is loaded from the network, and headless Chromium renders
# the front page and the work-precision page over a local HTTP server into screenshots).
# Needs the Debian packages of scripts/setup.sh (doxygen, python3-sphinx, python3-myst-parser,
# python3-breathe, python3-sphinx-rtd-theme, chromium) and the Python module (the reference).
add_test(NAME docs_site
  COMMAND bash -c "bash '${PROJECT_SOURCE_DIR}/scripts/docs.sh' && /usr/bin/python3 '${PROJECT_SOURCE_DIR}/scripts/check_docs_site.py' '${CMAKE_BINARY_DIR}/docs/html'"
  WORKING_DIRECTORY ${CMAKE_BINARY_DIR})
set_tests_properties(docs_site PROPERTIES TIMEOUT 600
  ENVIRONMENT "DAEKIT_BUILD_DIR=${CMAKE_BINARY_DIR}")
