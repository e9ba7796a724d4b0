// Prints the pool Go's scheduler has (GOMAXPROCS), then for SECONDS (its
// argument) runs steps of a fixed amount of work split among that many
// goroutines, each step waiting for all of them (a parallel loop), and
// prints the steps per second: a program that sizes its pool from the
// CPUs it sees, as Go does before 1.25 whatever the quota.
package main

import (
	"fmt"
	"os"
	"runtime"
	"strconv"
	"sync"
	"time"
)

const stepWork = 2000000 // additions per step, split among the goroutines

var sink int64

func main() {
	procs := runtime.GOMAXPROCS(0)
	fmt.Println("gomaxprocs", procs)
	seconds, _ := strconv.ParseFloat(os.Args[1], 64)
	start := time.Now()
	end := start.Add(time.Duration(seconds * float64(time.Second)))
	steps := 0
	var mu sync.Mutex
	for time.Now().Before(end) {
		var wg sync.WaitGroup
		for i := 0; i < procs; i++ {
			wg.Add(1)
			go func() {
				defer wg.Done()
				var x int64
				for j := 0; j < stepWork/procs; j++ {
					x += int64(j)
				}
				mu.Lock()
				sink += x
				mu.Unlock()
			}()
		}
		wg.Wait()
		steps++
	}
	fmt.Printf("steps_per_second %.1f\n", float64(steps)/time.Since(start).Seconds())
}
