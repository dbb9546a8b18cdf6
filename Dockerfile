# dynapi in a container; docker-compose.yaml pairs it with PostgreSQL 15.
FROM golang:1.26 AS build
WORKDIR /src
COPY go.mod go.sum ./
RUN go mod download
COPY . .
# Static (the final image has no libc), without symbols or build paths.
RUN CGO_ENABLED=0 go build -trimpath -ldflags="-s -w" -o /out/dynapi ./cmd/dynapi
# The data folder is made here because the final image has no shell: a
# named volume mounted on it starts as a copy of it, owner included.
RUN mkdir /out/data

# distroless's nonroot variant: no shell, user nonroot (65532).
FROM gcr.io/distroless/static-debian12:nonroot
COPY --from=build /out/dynapi /dynapi
COPY --from=build --chown=65532:65532 /out/data /data
# The shipped examples, for `docker run`; compose mounts the folders over them.
COPY schemas /schemas
COPY conversions /conversions
USER 65532:65532
# 0.0.0.0 with no authentication: dynapi bootstraps itself (CA, TLS,
# client certificates, RBAC) and writes /data/kubeconfig for the admin.
ENV DYNAPI_LISTEN=0.0.0.0:6443 \
    DYNAPI_SCHEMAS=/schemas \
    DYNAPI_CONVERSIONS=/conversions \
    DYNAPI_DATA_DIR=/data
EXPOSE 6443
VOLUME /data
# /readyz, at the address and with the CA that /data/kubeconfig names.
HEALTHCHECK --interval=5s --timeout=10s --start-period=60s --retries=3 CMD ["/dynapi", "healthcheck"]
ENTRYPOINT ["/dynapi"]
CMD ["serve"]
