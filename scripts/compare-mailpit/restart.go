package main

import (
	"errors"
	"fmt"
	"slices"
	"time"
)

// restarts fills each server with o.stored mails over 8 connections and
// then restarts each o.rounds times, in turns, printing the time from
// exec until its stored mail can be listed.
func restarts(o options, servers []*server) error {
	for _, s := range servers {
		for sent := 0; sent < o.stored; sent += 10000 {
			n := min(10000, o.stored-sent)
			if _, err := send(s, n, 8, sent); err != nil {
				return fmt.Errorf("%s: filling: %w", s.name, err)
			}
		}
		fmt.Printf("%-17s holds %d mails\n", s.name, o.stored)
	}
	times := make(map[*server][]time.Duration)
	for r := 1; r <= o.rounds; r++ {
		for _, s := range servers {
			s.stop()
			took, err := restart(s)
			if err != nil {
				return fmt.Errorf("%s: %w", s.name, err)
			}
			times[s] = append(times[s], took)
			fmt.Printf("round %d  %-17s restart over %d mails: %4d ms  (load %s)\n", r, s.name, o.stored, took.Milliseconds(), loadAverage())
		}
	}
	for _, s := range servers {
		slices.Sort(times[s])
		fmt.Printf("median   %-17s %4d ms\n", s.name, times[s][len(times[s])/2].Milliseconds())
	}
	return nil
}

// restart starts s again and returns the time from exec until its stored
// mail can be listed.
func restart(s *server) (time.Duration, error) {
	start := time.Now()
	if err := s.start(); err != nil {
		return 0, err
	}
	for deadline := start.Add(120 * time.Second); time.Now().Before(deadline); time.Sleep(time.Millisecond) {
		if s.listable() {
			return time.Since(start), nil
		}
	}
	return 0, errors.New("its stored mail was not listable within 120 s")
}
