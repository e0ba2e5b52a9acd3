# Builds Kodiak's distribution for the benchmarks that run it as bin/proxy.sh ships it. Sourced, not
# executed. bin/proxy.sh itself only warns about a stale jar (it may run inside a Maven build), so a
# benchmark that must measure the code in its checkout rebuilds first.

# kodiak_build_if_stale ROOT LOG: mvn package (tests skipped) when ROOT/target/kodiak.jar or its
# lib/ is missing, or src/main or pom.xml is newer than the jar. Prints one line when it builds;
# returns 1 with the log's tail on stderr when the build fails.
kodiak_build_if_stale() {
  local root=$1 log=$2 jar=$1/target/kodiak.jar
  if [ -f "$jar" ] && [ -d "$root/target/lib" ] &&
     [ -z "$(find "$root/src/main" "$root/pom.xml" -newer "$jar" -print -quit 2>/dev/null)" ]; then
    return 0
  fi
  # -DskipTlsSuite too: pom.xml's extra test runs set their own skip, which maven.test.skip does not
  # reach (they would run against whatever test classes target/ holds).
  echo "build Kodiak (mvn -Dmaven.test.skip=true -DskipTlsSuite=true package; $log)"
  timeout 900 mvn -B -q -f "$root/pom.xml" -Dmaven.test.skip=true -DskipTlsSuite=true package >"$log" 2>&1 \
    || { tail -n 20 "$log" >&2; return 1; }
}
