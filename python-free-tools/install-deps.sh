#!/bin/sh
# Installs nafsim's build and test dependencies from Debian 12 packages (run as root).
set -e
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq
apt-get install -y -qq --no-install-recommends \
  cmake g++ make pkg-config git \
  libsimgrid-dev libboost-graph-dev nlohmann-json3-dev libfmt-dev libgtest-dev libcli11-dev \
  gnuplot-nox openmpi-bin libprotobuf-dev protobuf-compiler > /dev/null
