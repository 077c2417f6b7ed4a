# The controller image: the controller's own static binary (cmd/gantry-controller, without the
# CLI's other commands) on distroless.
FROM golang:1.26 AS build
WORKDIR /src
COPY go.mod go.sum ./
RUN go mod download
COPY . .
RUN hack/build.sh /gantry ./cmd/gantry-controller

FROM gcr.io/distroless/static-debian12:nonroot
COPY --from=build /gantry /gantry
USER 65532:65532
ENTRYPOINT ["/gantry"]
