# Records the git commit the binary was built from, so that every result
# record can name it. Re-read at each build, so a new commit is never stale.
add_custom_target(gradsync_git_commit
  COMMAND ${CMAKE_COMMAND} -DSOURCE_DIR=${CMAKE_SOURCE_DIR}
          -DOUTPUT=${CMAKE_BINARY_DIR}/generated/git_commit.h
          -P ${CMAKE_SOURCE_DIR}/cmake/WriteGitCommit.cmake
  BYPRODUCTS ${CMAKE_BINARY_DIR}/generated/git_commit.h)
