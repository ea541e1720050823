package htmlrender

import (
	"bufio"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"
)

// BenchmarkRenderCold is a first render: the browser started for it
// (and stopped after, outside the timer); it reports the processor time
// the browser used until the picture was taken (the spare tab opened
// after it included, as far as it got).
func BenchmarkRenderCold(b *testing.B) {
	in := newsletter(b)
	var cpu time.Duration
	for b.Loop() {
		r := New(testConfig())
		res := render(b, r, in, Options{Width: 1024})
		b.StopTimer()
		cpu += treeCPU(r.pid())
		b.ReportMetric(float64(len(res.PNG)), "png-bytes")
		if err := r.Close(); err != nil {
			b.Fatal(err)
		}
		b.StartTimer()
	}
	b.ReportMetric(float64(cpu.Milliseconds())/float64(b.N), "browser-cpu-ms/op")
}

// BenchmarkRenderWarm is a render on a running browser with its spare
// tab ready (as when a reader switches width or scheme), of the 1024 px
// newsletter; it reports the PNG's bytes and the browser's memory (the
// PSS of its processes, the spare tab included).
func BenchmarkRenderWarm(b *testing.B) {
	in := newsletter(b)
	var res Result
	render(b, shared, in, Options{Width: 1024})
	shared.work.Wait()
	cpu := treeCPU(shared.pid())
	for b.Loop() {
		res = render(b, shared, in, Options{Width: 1024})
		b.StopTimer()
		shared.work.Wait() // the tab closed, the next one ready
		b.StartTimer()
	}
	mb := float64(treePSS(shared.pid())) / (1 << 20)
	b.ReportMetric(float64(len(res.PNG)), "png-bytes")
	b.ReportMetric(mb, "browser-MB")
	b.ReportMetric(float64((treeCPU(shared.pid())-cpu).Milliseconds())/float64(b.N), "browser-cpu-ms/op")
	// The README says "some 330 MiB": it stops being true above maxBrowserMB.
	if mb > maxBrowserMB {
		b.Fatalf("the browser takes %.0f MiB, over the %d MiB the README's figure allows", mb, maxBrowserMB)
	}
}

// maxBrowserMB bounds the browser's memory that the README's figure
// (some 330 MiB) allows.
const maxBrowserMB = 400

// BenchmarkRenderBackToBack renders without a pause: each render waits
// for the tab the last one had opened.
func BenchmarkRenderBackToBack(b *testing.B) {
	in := newsletter(b)
	render(b, shared, in, Options{Width: 1024})
	for b.Loop() {
		render(b, shared, in, Options{Width: 1024})
	}
}

// treeCPU is the processor time, user and system, that process pid and
// its descendants used, those that ended and were waited for included:
// what a render costs the browser, which a busy machine's wall clock
// hides. The opening of the next spare tab is in it.
func treeCPU(pid int) time.Duration {
	var ticks int64
	walkTree(pid, func(p int) {
		b, err := os.ReadFile(filepath.Join("/proc", strconv.Itoa(p), "stat"))
		if err != nil {
			return
		}
		s := string(b)
		f := strings.Fields(s[strings.LastIndexByte(s, ')')+1:])
		// utime, stime, cutime, cstime are fields 14-17 of stat: 11-14
		// after the command's name and state.
		for _, v := range f[11:15] {
			n, _ := strconv.ParseInt(v, 10, 64)
			ticks += n
		}
	})
	return time.Duration(ticks) * time.Second / 100 // USER_HZ
}

// treePSS is the memory, in bytes, of process pid and its descendants
// (the browser, its renderers, GPU and utility processes): their
// proportional set size, so that the memory they share is counted once.
func treePSS(pid int) int64 {
	var total int64
	walkTree(pid, func(p int) { total += pss(p) })
	return total
}

// walkTree calls fn for process pid and each of its descendants.
func walkTree(pid int, fn func(pid int)) {
	children := map[int][]int{}
	stats, _ := filepath.Glob("/proc/[0-9]*/stat")
	for _, p := range stats {
		b, err := os.ReadFile(p)
		if err != nil {
			continue
		}
		s := string(b)
		fields := strings.Fields(s[strings.LastIndexByte(s, ')')+1:])
		if len(fields) < 2 {
			continue
		}
		ppid, _ := strconv.Atoi(fields[1])
		child, _ := strconv.Atoi(filepath.Base(filepath.Dir(p)))
		children[ppid] = append(children[ppid], child)
	}
	var walk func(int)
	walk = func(p int) {
		fn(p)
		for _, c := range children[p] {
			walk(c)
		}
	}
	if pid > 0 {
		walk(pid)
	}
}

// pss is one process's Pss in bytes (0 when it is gone).
func pss(pid int) int64 {
	f, err := os.Open(filepath.Join("/proc", strconv.Itoa(pid), "smaps_rollup"))
	if err != nil {
		return 0
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if v, ok := strings.CutPrefix(sc.Text(), "Pss:"); ok {
			kb, _ := strconv.ParseInt(strings.TrimSuffix(strings.TrimSpace(v), " kB"), 10, 64)
			return kb << 10
		}
	}
	return 0
}
