# dynapi in a container; docker-compose.yaml pairs it with PostgreSQL.
FROM golang:1.26 AS build
WORKDIR /src
COPY go.mod go.sum ./
RUN go mod download
COPY . .
RUN CGO_ENABLED=0 go build -o /dynapi ./cmd/dynapi

FROM gcr.io/distroless/static-debian12
COPY --from=build /dynapi /dynapi
COPY schemas /schemas
COPY conversions /conversions
ENTRYPOINT ["/dynapi", "serve", "--listen=0.0.0.0:8080", "--schemas=/schemas", "--conversions=/conversions"]
