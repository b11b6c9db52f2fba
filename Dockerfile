# mcpwasm container image: a static binary on distroless, as a non-root user,
# with a read-only root filesystem. The example plugins are embedded in the
# binary; add yours with a derived image (COPY my.wasm /plugins/) or mount
# them, and point the config at them. See README "Scale out".
#
#   docker build -t mcpwasm .
#   docker run --rm -p 8080:8080 -v "$PWD/deploy/kubernetes:/etc/mcpwasm:ro" \
#     --read-only --tmpfs /var/cache/mcpwasm mcpwasm
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
