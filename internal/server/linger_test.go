package server

import (
	"context"
	"errors"
	"io"
	"net"
	"sync"
	"syscall"
	"testing"
	"time"
)

// TestServer_ShutdownSlowReader stops the server while a client that
// pipelines requests nonstop reads its replies far slower than they come:
// megabytes of replies wait in the socket buffers, more than the client
// reads in lingerTimeout. Every reply the server wrote must still arrive
// whole, up to the end of the stream: the lingering close goes on while
// the client reads, where closing with requests unread would make the
// kernel reset the connection and drop the replies not yet sent.
func TestServer_ShutdownSlowReader(t *testing.T) {
	if !canTellUnsent(t) {
		t.Skip("the kernel does not tell a socket's unacknowledged bytes here")
	}
	s, addr := newTestServer(t, Config{})
	nc, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	defer nc.Close()
	nc.SetDeadline(time.Now().Add(2 * time.Minute))

	// 255 IDs a request: 2,040 bytes of reply for one byte asked.
	const perReply = 8 * 255
	stopWriting := make(chan struct{})
	var wg sync.WaitGroup
	wg.Go(func() {
		req := make([]byte, 64)
		for i := range req {
			req[i] = 255
		}
		for {
			select {
			case <-stopWriting:
				return
			default:
			}
			if _, err := nc.Write(req); err != nil {
				return
			}
			time.Sleep(2 * time.Millisecond)
		}
	})
	// Let the buffers fill, then stop the server while the client reads
	// 16 KiB every 10 ms: under 2 MB/s.
	time.Sleep(300 * time.Millisecond)
	stopped := make(chan error, 1)
	go func() { stopped <- s.Shutdown(context.Background()) }()
	var got int
	buf := make([]byte, 16<<10)
	var readErr error
	for {
		n, err := nc.Read(buf)
		got += n
		if err != nil {
			if !errors.Is(err, io.EOF) {
				readErr = err
			}
			break
		}
		time.Sleep(10 * time.Millisecond)
	}
	close(stopWriting)
	wg.Wait()
	if err := <-stopped; err != nil {
		t.Errorf("Shutdown: %v", err)
	}
	t.Logf("%d bytes of replies (%d replies) until %v", got, got/perReply, readErr)
	if readErr != nil && !errors.Is(readErr, syscall.ECONNRESET) {
		t.Fatalf("reading the replies: %v", readErr)
	}
	if got%perReply != 0 {
		t.Errorf("%d bytes of replies: they end inside reply %d, %d bytes of it missing", got, got/perReply+1, perReply-got%perReply)
	}
	if readErr != nil {
		t.Errorf("the replies ended with %v, not the end of the stream", readErr)
	}
}

// canTellUnsent reports whether unsent works on a real connection.
func canTellUnsent(t *testing.T) bool {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	c, err := net.Dial("tcp", l.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	return unsent(c) >= 0
}
