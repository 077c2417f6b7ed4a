# The controller image: a static binary on distroless.
FROM golang:1.26 AS build
WORKDIR /src
COPY go.mod go.sum ./
RUN go mod download
COPY . .
RUN hack/build.sh /gantry

FROM gcr.io/distroless/static-debian12:nonroot
COPY --from=build /gantry /gantry
USER 65532:65532
ENTRYPOINT ["/gantry"]
