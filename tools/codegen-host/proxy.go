package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"

	pulumirpc "github.com/pulumi/pulumi/sdk/v3/proto/go"
	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials/insecure"
	"google.golang.org/grpc/metadata"
	"google.golang.org/protobuf/proto"
)

// frame is a message passed through unread: the wrapper forwards calls without knowing their types, so an old
// host's replies (including fields this binary's protos lack) reach the CLI unchanged.
type frame struct{ payload []byte }

// passCodec encodes frames as their bytes and everything else as protobuf.
type passCodec struct{}

func (passCodec) Name() string { return "proto" }

func (passCodec) Marshal(v any) ([]byte, error) {
	switch m := v.(type) {
	case *frame:
		return m.payload, nil
	case proto.Message:
		return proto.Marshal(m)
	}
	return nil, fmt.Errorf("cannot encode %T", v)
}

func (passCodec) Unmarshal(data []byte, v any) error {
	switch m := v.(type) {
	case *frame:
		m.payload = append([]byte(nil), data...)
		return nil
	case proto.Message:
		return proto.Unmarshal(data, m)
	}
	return fmt.Errorf("cannot decode into %T", v)
}

// serve starts the wrapper's gRPC server on a free local port and returns the port and a stop function.
func serve(lang, oldAddress string) (int, func(), error) {
	conn, err := grpc.NewClient(oldAddress,
		grpc.WithTransportCredentials(insecure.NewCredentials()),
		grpc.WithDefaultCallOptions(grpc.ForceCodec(passCodec{}), grpc.MaxCallRecvMsgSize(maxMessage)),
	)
	if err != nil {
		return 0, nil, fmt.Errorf("connect to the old host at %s: %w", oldAddress, err)
	}
	server := grpc.NewServer(
		grpc.ForceServerCodec(passCodec{}),
		grpc.MaxRecvMsgSize(maxMessage),
		grpc.UnknownServiceHandler(forwardTo(conn)),
	)
	server.RegisterService(generatorService(), &generator{lang: lang, old: pulumirpc.NewLanguageRuntimeClient(conn)})

	listener, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		_ = conn.Close()
		return 0, nil, err
	}
	go func() { _ = server.Serve(listener) }()
	stop := func() {
		server.Stop()
		_ = conn.Close()
	}
	return listener.Addr().(*net.TCPAddr).Port, stop, nil
}

// maxMessage matches the 400 MiB limit Pulumi's own plugins accept (schemas and generated programs can be large).
const maxMessage = 400 * 1024 * 1024

// generatorService is the LanguageRuntime service with only the methods this wrapper serves (and
// InstallDependencies and RunPlugin, see install.go and runplugin.go): grpc-go hands
// calls of the service's other methods to the unknown-service handler, which forwards them.
func generatorService() *grpc.ServiceDesc {
	desc := pulumirpc.LanguageRuntime_ServiceDesc
	desc.Streams = nil
	desc.Methods = nil
	for _, m := range pulumirpc.LanguageRuntime_ServiceDesc.Methods {
		switch m.MethodName {
		case "GeneratePackage", "GenerateProgram", "GenerateProject", "Link":
			desc.Methods = append(desc.Methods, m)
		}
	}
	for _, s := range pulumirpc.LanguageRuntime_ServiceDesc.Streams {
		if s.StreamName == "InstallDependencies" || s.StreamName == "RunPlugin" {
			desc.Streams = append(desc.Streams, s)
		}
	}
	return &desc
}

// forwardTo relays any call, unary or streaming, to the same method of the old host, with its metadata.
func forwardTo(conn *grpc.ClientConn) grpc.StreamHandler {
	return func(_ any, in grpc.ServerStream) error {
		method, ok := grpc.MethodFromServerStream(in)
		if !ok {
			return errors.New("no method name on the incoming call")
		}
		ctx, cancel := context.WithCancel(in.Context())
		defer cancel()
		if md, ok := metadata.FromIncomingContext(ctx); ok {
			ctx = metadata.NewOutgoingContext(ctx, md.Copy())
		}
		out, err := conn.NewStream(ctx, &grpc.StreamDesc{ServerStreams: true, ClientStreams: true}, method)
		if err != nil {
			return err
		}

		// Requests: CLI -> old host, until the CLI closes its side.
		sent := make(chan error, 1)
		go func() {
			for {
				var f frame
				if err := in.RecvMsg(&f); err != nil {
					if errors.Is(err, io.EOF) {
						sent <- out.CloseSend()
					} else {
						sent <- err
					}
					return
				}
				if err := out.SendMsg(&f); err != nil {
					sent <- err
					return
				}
			}
		}()

		// Replies: old host -> CLI, headers first, then messages, then the status and trailers.
		if header, err := out.Header(); err == nil {
			if err := in.SendHeader(header); err != nil {
				return err
			}
		}
		for {
			var f frame
			err := out.RecvMsg(&f)
			if errors.Is(err, io.EOF) {
				in.SetTrailer(out.Trailer())
				return nil
			}
			if err != nil {
				in.SetTrailer(out.Trailer())
				return err // the old host's status, passed through as is
			}
			if err := in.SendMsg(&f); err != nil {
				return err
			}
			select {
			case err := <-sent:
				if err != nil {
					return err
				}
			default:
			}
		}
	}
}
