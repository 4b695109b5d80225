package server

import (
	"cmp"
	"context"
	"strconv"

	"google.golang.org/protobuf/types/known/timestamppb"

	"github.com/floeid/floe/id128"
	"github.com/floeid/floe/id64"
	"github.com/floeid/floe/id80"
	"github.com/floeid/floe/id96"
	"github.com/floeid/floe/internal/floev1"
)

// Inspect returns the parts and time of an ID, read in its sequence's
// format and layout, or in req.Layout (id64 only), as the HTTP API's
// /v1/inspect does.
func (svc *idsService) Inspect(ctx context.Context, req *floev1.InspectRequest) (*floev1.InspectResponse, error) {
	seq, err := svc.lookup(ctx, "inspect", req.GetSequence())
	if err != nil {
		return nil, err
	}
	resp, msg := inspectRequest(seq, req)
	if msg != "" {
		return nil, svc.refuse(ctx, "inspect", "bad_request", msg)
	}
	svc.s.m.grpcRequest("inspect", "ok")
	return resp, nil
}

// inspectRequest answers req for seq, or says what is wrong with it.
func inspectRequest(seq *sequence, req *floev1.InspectRequest) (*floev1.InspectResponse, string) {
	resp := &floev1.InspectResponse{Sequence: seq.name, Format: formatOf(seq.format)}
	if req.GetLayout() != "" && seq.format != Format64 {
		return nil, "layout is for id64 sequences only; sequence " + seq.name + " is " + string(seq.format)
	}
	var err error
	switch seq.format {
	case Format80:
		err = inspect80Proto(resp, req)
	case Format96:
		err = inspect96Proto(resp, req)
	case Format128:
		err = inspect128Proto(resp, req)
	default:
		l := cmp.Or(seq.sc.Layout, id64.Twitter)
		if text := req.GetLayout(); text != "" {
			if l, err = id64.ParseLayout(text); err != nil {
				return nil, "layout: " + err.Error()
			}
		}
		err = inspect64Proto(resp, req, l)
	}
	if err != nil {
		return nil, err.Error()
	}
	return resp, ""
}

// errNoID is a request that gives no ID.
type errNoID struct{}

func (errNoID) Error() string { return "no id: give id64, binary or text" }

func inspect64Proto(resp *floev1.InspectResponse, req *floev1.InspectRequest, l id64.Layout) error {
	var text string
	switch v := req.GetId().(type) {
	case *floev1.InspectRequest_Id64:
		text = strconv.FormatUint(v.Id64, 10)
	case *floev1.InspectRequest_Binary:
		id, err := id64.FromBytes(v.Binary)
		if err != nil {
			return err
		}
		text = strconv.FormatUint(uint64(id), 10)
	case *floev1.InspectRequest_Text:
		text = v.Text
	default:
		return errNoID{}
	}
	id, err := l.ParseID(text)
	if err != nil {
		return err
	}
	p := l.Parts(id)
	resp.Text, resp.Time, resp.Tick = id.String(), timestamppb.New(p.Time), p.Tick
	resp.Parts = &floev1.InspectResponse_Id64{Id64: &floev1.ID64Parts{
		Layout: l.String(), Datacenter: p.Datacenter, Worker: p.Worker, Node: p.Node, Sequence: p.Sequence,
	}}
	return nil
}

func inspect80Proto(resp *floev1.InspectResponse, req *floev1.InspectRequest) error {
	id, err := decodeWide(req, "id80", id80.FromBytes, id80.Parse)
	if err != nil {
		return err
	}
	p := id.Parts()
	resp.Text, resp.Time, resp.Tick = id.String(), timestamppb.New(p.Time), p.Timestamp
	resp.Parts = &floev1.InspectResponse_Id80{Id80: &floev1.ID80Parts{
		Ticktock: p.TickTock, Meta: uint32(p.Meta), Partition: uint32(p.Partition.Uint16()), Sequence: uint32(p.Sequence),
	}}
	return nil
}

func inspect96Proto(resp *floev1.InspectResponse, req *floev1.InspectRequest) error {
	id, err := decodeWide(req, "id96", id96.FromBytes, id96.Parse)
	if err != nil {
		return err
	}
	p := id.Parts()
	resp.Text, resp.Time, resp.Tick = id.String(), timestamppb.New(p.Time), p.Tick
	resp.Parts = &floev1.InspectResponse_Id96{Id96: &floev1.ID96Parts{
		Drift: uint32(p.Drift), Node: p.Node, Sequence: uint32(p.Sequence),
	}}
	return nil
}

func inspect128Proto(resp *floev1.InspectResponse, req *floev1.InspectRequest) error {
	id, err := decodeWide(req, "id128", id128.FromBytes, id128.Parse)
	if err != nil {
		return err
	}
	p := id.Parts()
	resp.Text, resp.Time, resp.Tick = id.String(), timestamppb.New(p.Time), p.Tick
	resp.Parts = &floev1.InspectResponse_Id128{Id128: &floev1.ID128Parts{
		Counter: p.Counter, Worker: uint32(p.Worker), Random: p.Random,
	}}
	return nil
}

// errNotID64 is an id64 number given for an ID of a wider format.
type errNotID64 struct{ format string }

func (e errNotID64) Error() string {
	return "id64 is for id64 sequences only; this sequence is " + e.format + ": give binary or text"
}

// decodeWide reads the ID of an inspect request of a format wider than 64
// bits, named format, from its bytes or its text.
func decodeWide[ID any](req *floev1.InspectRequest, format string, fromBytes func([]byte) (ID, error), parse func(string) (ID, error)) (ID, error) {
	var zero ID
	switch v := req.GetId().(type) {
	case *floev1.InspectRequest_Binary:
		return fromBytes(v.Binary)
	case *floev1.InspectRequest_Text:
		return parse(v.Text)
	case *floev1.InspectRequest_Id64:
		return zero, errNotID64{format}
	}
	return zero, errNoID{}
}
