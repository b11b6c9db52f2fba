# mcpwasm container image: a static binary on distroless, as a non-root user,
# with a read-only root filesystem. The example plugins are embedded in the
# binary; add yours with a derived image (COPY my.wasm /plugins/) or mount
# them, and point the config at them. See docs/operating.md, "Container image".
# The build context is the Go sources alone (.dockerignore), ~4 MB.
#
#   docker build -t mcpwasm .
#
# A config and its secret in a folder of their own, mounted at /etc/mcpwasm:
#
#   mkdir mcpwasm-etc && cd mcpwasm-etc
#   printf '[server]\nhttp = "0.0.0.0:8080"\nallowed_hosts = ["localhost", "127.0.0.1"]\n[server.auth]\ntokens_file = "tokens"\n' > mcpwasm.toml
#   echo "me $(openssl rand -hex 24)" > tokens && chmod 600 tokens
#   docker run --rm -p 127.0.0.1:8080:8080 --user "$(id -u):$(id -g)" \
#     -v "$PWD:/etc/mcpwasm:ro" --read-only \
#     --tmpfs "/var/cache/mcpwasm:uid=$(id -u),gid=$(id -g),mode=0700" mcpwasm
#
# --user runs it as you, so it can read the tokens file you own (mode 600);
# the compile cache must be a folder that user owns and no one else may
# write to, hence the tmpfs options. Then call it with the token:
# docs/operating.md, "Call a token-protected server".
FROM golang:1.26-bookworm AS build
WORKDIR /src
COPY go.mod go.sum ./
RUN go mod download
COPY . .
# The same script and flags CI uses (scripts/build-static.sh).
RUN VERSION=container ./scripts/build-static.sh /out/mcpwasm

FROM gcr.io/distroless/static-debian12:nonroot
COPY --from=build /out/mcpwasm /usr/local/bin/mcpwasm
# The compile cache must be writable: mount a volume (an emptyDir on
# Kubernetes) here, since the root filesystem is read-only.
VOLUME ["/var/cache/mcpwasm"]
USER 65532:65532
EXPOSE 8080
ENTRYPOINT ["/usr/local/bin/mcpwasm"]
CMD ["serve", "--config", "/etc/mcpwasm/mcpwasm.toml", "--cache-dir", "/var/cache/mcpwasm"]
