# DCTCP web search flow sizes (Alizadeh et al., SIGCOMM 2010), as the HPCC
# paper's traffic generator uses them: <bytes> <cdf percent>
0 0
10000 15
20000 20
30000 30
50000 40
80000 53
200000 60
1000000 70
2000000 80
5000000 90
10000000 97
30000000 100
